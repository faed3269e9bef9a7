import { useQuery } from '@tanstack/react-query';
import { Button } from 'antd-mobile';
import { AddOutline, DeleteOutline } from 'antd-mobile-icons';
import { useEffect, useMemo, useRef } from 'react';
import { isDumpTruckModel } from '../../../../domain/appointments';
import { enums, type EnumOption } from '../../../../domain/enums';
import {
  MAX_CAR_PERSONS,
  carApplicationEdit,
  carApplicationRuleErrors,
  carApplicationSave,
  dumpTruckFileKeys,
  dumpTruckFileLabels,
  requiredCargoInfo,
  stripHiddenCargo,
  type CarApplicationRow,
  type CarRuleValues,
  type VehicleModelFlags,
} from '../../../../domain/schemas/car-application';
import type { VehicleTypeRow } from '../../../../domain/schemas/vehicle-type';
import { transportListApi } from '../../../../domain/schemas/transport-list';
import { NEEDS_REGISTRATION_HINT } from '../../../../domain/schemas/vehicle-registration';
import { PASSAGE_HOURS_HINT, carVisitErrors, carVisitTypeHint, earliestCarVisitDate } from '../../../../domain/visit-rules';
import { DateInput } from '../../../components/date-inputs';
import { EnumSelect } from '../../../components/enum-select';
import { call } from '../../../lib/http';
import { splitFileNames } from '../../../lib/files';
import { useMe } from '../../../lib/me';
import { useVehicleTypes } from '../../../lib/preloads';
import type { SaveIntent, ScreenModalProps, Values } from '../../../list-screen';
import { cargoInfoFields, cargoUnits } from '../shared/application-detail';
import {
  ApplicationModal,
  Field,
  FormItem,
  FormSection,
  focusFirstError,
  jsonObject,
  labelOf,
  pickValues,
  saveApplication,
  toErrors,
  useApplicationForm,
  useFullApplication,
  useSaving,
  type ApplicationFormState,
  type Errors,
  type FormMode,
} from '../shared/application-form';
import { appointmentKinds } from '../../../../domain/appointment-kinds';
import { parkNow } from '../shared/visit-time';

const FORM_KEYS = [
  'license_plate',
  'license_plate_color',
  'vehicle_type_id',
  'applicant_name',
  'applicant_idcard',
  'applicant_gender',
  'applicant_phone',
  'applicant_face_photo',
  'visitor_idcard_type',
  'visit_area',
  'visitor_type',
  'visitor_company',
  'visitor_content',
  'visitor_begin_time',
  'visitor_end_time',
  'interviewee_name',
  'interviewee_phone',
  'interviewee_depart_id',
  'vehicle_license_number',
  'engine_number',
  'trailer_license',
  'cargo_type',
  'cargo_name',
  'car_load',
  'remark',
  'vehicle_img',
  'img12123',
  'blind_video_photo',
  'register_record_photo',
] as const;
const PERSON_KEYS = ['name', 'idcard_type', 'id_card', 'gender', 'phone', 'type', 'face_photo', 'pqc_number'] as const;
const FILLED_PERSON_KEYS = ['name', 'id_card', 'phone', 'face_photo', 'pqc_number'] as const;

const cargoTypeOptions: EnumOption[] = [
  { value: 0, label: '普通货物' },
  { value: 1, label: '危险货物' },
];
const unitOptions: EnumOption<string>[] = cargoUnits.map((u) => ({ value: u, label: u }));
const plateColorText: EnumOption<string>[] = enums.plateColor.map((o) => ({ value: o.label, label: o.label }));
const requiredCargo = new Set(requiredCargoInfo.map(([k]) => k));

let rowSeq = 0;
/** A stable React key per driver/passenger row; never sent. */
const KEY = '_k';
const withKey = (p: Values): Values => ({ ...p, [KEY]: ++rowSeq });

const modelFlags = (t: VehicleTypeRow | undefined): VehicleModelFlags | null =>
  t ? { name: t.name, need_blind_video: t.need_blind_video, need_record: t.need_record, show_cargo_type: t.show_cargo_type } : null;

const hasDumpFiles = (v: unknown) => {
  const o = jsonObject(v);
  return !!o && dumpTruckFileKeys.some((k) => splitFileNames(o[k]).length > 0);
};

/** Form values of a stored application (edit keeps the passenger ids, copy starts them afresh). */
function valuesOf(row: CarApplicationRow, mode: FormMode): Values {
  const v = pickValues(row, FORM_KEYS);
  const cargo = jsonObject(row.cargo_info);
  if (cargo) v.cargo_info = cargo;
  const dump = jsonObject(row.dump_truck_file);
  if (dump) v.dump_truck_file = dump;
  v.carPersonList = (row.carPersonList ?? []).map((p) => {
    const out = pickValues(p, PERSON_KEYS);
    if (mode === 'edit' && p.car_person_id) out.car_person_id = p.car_person_id;
    return withKey(out);
  });
  return v;
}

const isBlankValue = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

export interface CarFormContext {
  model: VehicleTypeRow | undefined;
  /** The dump-truck section shows for dump-truck models, and wherever such files were already given. */
  showDump: boolean;
}

/**
 * The body as it is sent: hidden parts dropped (cargo when the model shows no
 * cargo type, hazardous details unless cargo_type is 1, the dump-truck files
 * when their section is hidden, photos of fields the model does not ask for),
 * and empty driver/passenger rows left out.
 */
export function carPayload(values: Values, ctx: CarFormContext): Values {
  const model = ctx.model;
  let v: Values = { ...values };
  v.carPersonList = ((values.carPersonList as Values[] | undefined) ?? [])
    .map(({ [KEY]: _k, ...p }) => p)
    // The type is preset on a new row; a row counts once something about the person is given.
    .filter((p) => FILLED_PERSON_KEYS.some((k) => !isBlankValue(p[k])));
  if (model && model.need_blind_video !== 1) v.blind_video_photo = '';
  if (model && model.need_record !== 1) v.register_record_photo = '';
  if (!ctx.showDump) delete v.dump_truck_file;
  if (v.cargo_type !== 1) delete v.cargo_info;
  // An untouched hazardous section still gets its per-field messages rather than one for the whole section.
  else if (!v.cargo_info) v.cargo_info = {};
  v = stripHiddenCargo(v, modelFlags(model));
  return v;
}

/** Every message for the car form: the shared schema, the visit-time rules, and the model-dependent rules (spec 000 §5). */
export function carFormErrors(body: Values, mode: FormMode, ctx: CarFormContext, today: string): { errors: Errors; data?: Values } {
  const schema = mode === 'edit' ? carApplicationEdit : carApplicationSave;
  const parsed = schema.safeParse(body);
  const flags = modelFlags(ctx.model);
  const errors = toErrors([
    ...(parsed.success ? [] : parsed.error.issues),
    ...carVisitErrors(
      { visitor_type: body.visitor_type as number | undefined, visitor_begin_time: body.visitor_begin_time as string | undefined, visitor_end_time: body.visitor_end_time as string | undefined },
      flags ? { name: flags.name } : null,
      today,
    ),
    ...carApplicationRuleErrors(body as CarRuleValues, flags),
  ]);
  return { errors, data: parsed.success ? (parsed.data as Values) : undefined };
}

function VisitTimes({ form, today }: { form: ApplicationFormState; today: string }) {
  const earliest = earliestCarVisitDate(today);
  const begin = form.get('visitor_begin_time') as string | undefined;
  const beginDay = begin ? begin.slice(0, 10) : undefined;
  return (
    <>
      <FormItem label={labelOf(form, 'visitor_begin_time')} required error={form.errors.visitor_begin_time} htmlFor="af-visitor_begin_time" help={`最早可选 ${earliest}`}>
        <DateInput aria-label={labelOf(form, 'visitor_begin_time')} value={begin} min={earliest} onChange={(v) => form.set('visitor_begin_time', v)} />
      </FormItem>
      <FormItem label={labelOf(form, 'visitor_end_time')} required error={form.errors.visitor_end_time} htmlFor="af-visitor_end_time" help={PASSAGE_HOURS_HINT}>
        <DateInput
          aria-label={labelOf(form, 'visitor_end_time')}
          value={form.get('visitor_end_time')}
          min={beginDay && beginDay > earliest ? beginDay : earliest}
          onChange={(v) => form.set('visitor_end_time', v)}
        />
      </FormItem>
    </>
  );
}

function CarPersons({ form }: { form: ApplicationFormState }) {
  const list = (form.get('carPersonList') as Values[] | undefined) ?? [];
  const setList = (next: Values[]) => {
    form.set('carPersonList', next);
    // Messages are keyed by row index: after a removal they would point at the wrong person.
    form.setErrors((e) => Object.fromEntries(Object.entries(e).filter(([k]) => !k.startsWith('carPersonList'))));
  };
  const full = list.length >= MAX_CAR_PERSONS;
  return (
    <FormSection
      title="司乘人员"
      error={form.errors.carPersonList}
      extra={
        <Button size="mini" fill="outline" color="primary" className="af-add-btn" disabled={full} onClick={() => setList([...list, withKey({ type: list.length === 0 ? 1 : 3 })])}>
          <AddOutline /> 添加司乘人员
        </Button>
      }
    >
      <div className="af-wide">
        {list.length === 0 ? (
          <div className="af-empty">未添加司乘人员（选填），可添加司机、副驾驶或乘客，最多{MAX_CAR_PERSONS}人。</div>
        ) : (
          <div className="af-persons">
            {list.map((p, i) => (
              <div className="af-person" key={String(p[KEY] ?? i)}>
                <div className="af-person__head">
                  <span>司乘人员 {i + 1}</span>
                  <button type="button" className="af-person__remove" onClick={() => setList(list.filter((_, j) => j !== i))} aria-label={`删除司乘人员${i + 1}`}>
                    <DeleteOutline /> 删除
                  </button>
                </div>
                <div className="af-grid">
                  <Field form={form} path={`carPersonList.${i}.name`} kind="text" />
                  <Field form={form} path={`carPersonList.${i}.type`} kind="enum" options="driverType" />
                  <Field form={form} path={`carPersonList.${i}.idcard_type`} kind="enum" options="idcardType" />
                  <Field form={form} path={`carPersonList.${i}.id_card`} kind="text" />
                  <Field form={form} path={`carPersonList.${i}.gender`} kind="enum" options="gender" />
                  <Field form={form} path={`carPersonList.${i}.phone`} kind="text" />
                  <Field form={form} path={`carPersonList.${i}.pqc_number`} kind="text" />
                  <Field form={form} path={`carPersonList.${i}.face_photo`} kind="images" max={1} wide={false} />
                </div>
              </div>
            ))}
          </div>
        )}
      </div>
    </FormSection>
  );
}

/**
 * DESIGN.md §7: the cargo of a hazardous-goods visit can come from one of the
 * applicant's approved waybills; choosing one fills 危险货物信息, which stays
 * editable. Shown only when there is a waybill to take.
 */
function WaybillPicker({ form }: { form: ApplicationFormState }) {
  const options = useQuery({
    queryKey: ['appointment', 'waybill-options'],
    queryFn: () => call(transportListApi.approvedOptions, {}),
    staleTime: 60_000,
    retry: false,
  });
  const list = options.data ?? [];
  if (list.length === 0) return null;
  // 从运单带入 is a picker that fills cargo_info, not a field of the application: its label stays a literal.
  return (
    <FormItem label="从运单带入" help="选择已审核通过的运单，自动填写以下危险货物信息">
      <EnumSelect
        aria-label="从运单带入"
        placeholder="请选择运单"
        options={list.map((w) => ({ value: w.id, label: `${w.application_number} · ${w.license_plate} · ${w.cargo_name}` }))}
        onChange={(v) => {
          const w = list.find((x) => x.id === v);
          if (w) form.set('cargo_info', { ...(form.get('cargo_info') as Record<string, unknown> | undefined), ...w.cargo_info });
        }}
      />
    </FormItem>
  );
}

function CargoInfoSection({ form }: { form: ApplicationFormState }) {
  return (
    <FormSection title="危险货物信息" long error={form.errors.cargo_info} note="运输危险货物须填写以下信息，带 * 的为必填项。">
      <WaybillPicker form={form} />
      {cargoInfoFields.map((f) => {
        const path = `cargo_info.${f.key}`;
        const required = requiredCargo.has(f.key);
        if (f.kind === 'date')
          return (
            <FormItem key={f.key} label={f.label} required={required} error={form.errors[path]} htmlFor={`af-cargo_info-${f.key}`}>
              <DateInput aria-label={f.label} value={form.get(path)} onChange={(v) => form.set(path, v)} />
            </FormItem>
          );
        if (f.kind === 'images') return <Field key={f.key} form={form} path={path} label={f.label} kind="images" />;
        if (f.kind === 'unit') return <Field key={f.key} form={form} path={path} label={f.label} kind="enum" options={unitOptions as unknown as EnumOption[]} required={required} />;
        if (f.kind === 'plateColor') return <Field key={f.key} form={form} path={path} label={f.label} kind="enum" options={plateColorText as unknown as EnumOption[]} />;
        return <Field key={f.key} form={form} path={path} label={f.label} kind="text" unit={f.unit} required={required} />;
      })}
    </FormSection>
  );
}

function DumpTruckSection({ form, required }: { form: ApplicationFormState; required: boolean }) {
  return (
    <FormSection title="自卸车资料" error={form.errors.dump_truck_file} note={required ? '重型自卸货车须上传以下资料（监控回执选填）。' : undefined}>
      {dumpTruckFileKeys.map((k) => (
        <Field key={k} form={form} path={`dump_truck_file.${k}`} label={dumpTruckFileLabels[k]} kind="images" wide={false} required={required && k !== 'monitor_return_receipt'} />
      ))}
    </FormSection>
  );
}

function CarForm({ open, mode, row, onClose, onDone }: ScreenModalProps<CarApplicationRow> & { mode: FormMode }) {
  const me = useMe();
  const types = useVehicleTypes();
  const id = mode === 'create' || !row ? undefined : row.car_application_id;
  const full = useFullApplication<CarApplicationRow>(appointmentKinds.car, id, mode);
  const source = full.data;
  const form = useApplicationForm(
    () => (mode === 'create' ? { visitor_idcard_type: 1, visit_area: 1, license_plate_color: 2, interviewee_depart_id: me.data?.user.depart_id, carPersonList: [] } : {}),
    appointmentKinds.car.labels,
  );
  const { setValues } = form;
  const hadDump = useRef(false);
  const loaded = useRef(false);
  useEffect(() => {
    if (source && !loaded.current) {
      loaded.current = true;
      hadDump.current = hasDumpFiles(source.dump_truck_file);
      setValues(valuesOf(source, mode));
    }
  }, [source, setValues, mode]);
  const { saving, setSaving, ref } = useSaving();
  const today = parkNow();

  const typeId = form.get('vehicle_type_id');
  const model = useMemo(() => types.data?.find((t) => t.id === Number(typeId)), [types.data, typeId]);
  const modelOptions = useMemo<EnumOption[]>(() => (types.data ?? []).map((t) => ({ value: t.id, label: t.name })), [types.data]);
  const dumpModel = isDumpTruckModel(model?.name);
  const ctx: CarFormContext = { model, showDump: dumpModel || hadDump.current };
  const visitorType = form.get('visitor_type') as number | undefined;
  const showCargo = model?.show_cargo_type === 1;
  const hazardous = showCargo && form.get('cargo_type') === 1;

  const submit = async (intent: SaveIntent) => {
    if (saving) return;
    const body = carPayload(form.values, ctx);
    if (mode === 'edit' && row) body.car_application_id = row.car_application_id;
    const { errors, data } = carFormErrors(body, mode, ctx, today);
    if (Object.keys(errors).length || !data) {
      form.setErrors(errors);
      focusFirstError(ref.current);
      return;
    }
    setSaving(intent);
    const r = await saveApplication(appointmentKinds.car, mode, data, intent);
    setSaving(null);
    if (r.ok) onDone();
    else if (r.errors && Object.keys(r.errors).length) {
      form.setErrors(r.errors);
      focusFirstError(ref.current);
    }
  };

  const clearTimes = () => {
    // Another application type has another longest stay: the old dates may no longer hold.
    form.set('visitor_begin_time', undefined);
    form.set('visitor_end_time', undefined);
  };

  return (
    <ApplicationModal
      kind={appointmentKinds.car}
      mode={mode}
      open={open}
      onClose={onClose}
      onSubmit={(intent) => void submit(intent)}
      saving={saving}
      loading={id !== undefined && full.isLoading}
      loadError={full.error}
      onRetry={() => void full.refetch()}
      formRef={ref}
    >
      <FormSection title="申请人信息">
        <Field form={form} path="applicant_name" kind="text" required />
        <Field form={form} path="applicant_gender" kind="enum" options="gender" required />
        <Field form={form} path="visitor_idcard_type" kind="enum" options="idcardType" required />
        <Field form={form} path="applicant_idcard" kind="text" required />
        <Field form={form} path="applicant_phone" kind="text" required />
        <Field form={form} path="applicant_face_photo" kind="images" max={1} wide={false} />
      </FormSection>
      <CarPersons form={form} />
      <FormSection title="来访信息">
        <Field form={form} path="visitor_type" kind="enum" options="carVisitorType" required wide help={carVisitTypeHint(visitorType) || undefined} onChange={clearTimes} />
        <Field form={form} path="visit_area" kind="enum" options="visitArea" required wide />
        <Field form={form} path="visitor_company" kind="text" required />
        <Field form={form} path="interviewee_depart_id" kind="department" required />
        <Field form={form} path="interviewee_name" kind="text" required />
        <Field form={form} path="interviewee_phone" kind="text" required />
        <VisitTimes form={form} today={today} />
        <Field form={form} path="visitor_content" kind="textarea" required />
      </FormSection>
      <FormSection title="车辆信息">
        <Field form={form} path="license_plate" kind="text" required placeholder="如 粤L12345" />
        <Field form={form} path="license_plate_color" kind="enum" options="plateColor" required />
        <Field
          form={form}
          path="vehicle_type_id"
          kind="enum"
          options={modelOptions}
          required
          placeholder={types.isLoading ? '车型加载中…' : '请选择车型'}
          help={types.isError ? '车型加载失败，请稍后重试' : model?.need_record === 1 ? NEEDS_REGISTRATION_HINT : undefined}
        />
        <Field form={form} path="vehicle_license_number" kind="text" />
        <Field form={form} path="engine_number" kind="text" />
        <Field form={form} path="trailer_license" kind="text" />
        {showCargo && (
          <>
            <Field form={form} path="cargo_type" kind="enum" options={cargoTypeOptions} />
            <Field form={form} path="cargo_name" kind="text" />
            <Field form={form} path="car_load" kind="text" unit="吨" />
          </>
        )}
        <Field form={form} path="remark" kind="textarea" />
        <Field form={form} path="vehicle_img" kind="images" max={20} wide={false} />
        <Field form={form} path="img12123" kind="images" max={20} wide={false} help="交管12123中的车辆信息截图" />
        {model?.need_blind_video === 1 && <Field form={form} path="blind_video_photo" kind="images" max={20} required />}
        {model?.need_record === 1 && <Field form={form} path="register_record_photo" kind="images" max={20} required />}
      </FormSection>
      {hazardous && <CargoInfoSection form={form} />}
      {ctx.showDump && <DumpTruckSection form={form} required={dumpModel} />}
    </ApplicationModal>
  );
}

export function CarCreateModal(props: ScreenModalProps<CarApplicationRow>) {
  return <CarForm {...props} row={undefined} mode="create" />;
}
export function CarEditModal(props: ScreenModalProps<CarApplicationRow>) {
  return <CarForm {...props} mode="edit" />;
}
export function CarCopyModal(props: ScreenModalProps<CarApplicationRow>) {
  return <CarForm {...props} mode="copy" />;
}
