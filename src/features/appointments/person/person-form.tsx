import { personVisitErrors, personVisitTypeHint, latestPersonVisitStart } from '../../../../domain/visit-rules';
import { personApplicationEdit, personApplicationSave, type PersonApplicationRow } from '../../../../domain/schemas/person-application';
import { useEffect, useRef } from 'react';
import { DateInput } from '../../../components/date-inputs';
import { useMe } from '../../../lib/me';
import type { SaveIntent, ScreenModalProps, Values } from '../../../list-screen';
import {
  ApplicationModal,
  Field,
  FormItem,
  FormSection,
  PhotoGroup,
  labelOf,
  focusFirstError,
  saveApplication,
  toErrors,
  useApplicationForm,
  useFullApplication,
  useSaving,
  pickValues,
  type ApplicationFormState,
  type FormMode,
} from '../shared/application-form';
import { appointmentKinds } from '../../../../domain/appointment-kinds';
import { parkNow } from '../shared/visit-time';

const FORM_KEYS = [
  'visitor_name',
  'visitor_gender',
  'visitor_nation',
  'visitor_phone',
  'visitor_company',
  'visitor_address',
  'visitor_idcard_type',
  'visitor_idcard',
  'visitor_face_photo',
  'visitor_idcard_photo1',
  'visitor_idcard_photo2',
  'visitor_type',
  'visit_area',
  'visit_content',
  'visit_begin_time',
  'visit_end_time',
  'interviewee_name',
  'interviewee_phone',
  'interviewee_depart_id',
] as const;

/** Every message for the person form: the shared schema first, then the visit-time rules of spec 000 §5. */
export function personFormErrors(body: Values, mode: FormMode, today: string) {
  const schema = mode === 'edit' ? personApplicationEdit : personApplicationSave;
  const parsed = schema.safeParse(body);
  const errors = toErrors([
    ...(parsed.success ? [] : parsed.error.issues),
    ...personVisitErrors(
      { visitor_type: body.visitor_type as number | undefined, visit_begin_time: body.visit_begin_time as string | undefined, visit_end_time: body.visit_end_time as string | undefined },
      today,
    ),
  ]);
  return { errors, data: parsed.success ? (parsed.data as Values) : undefined };
}

function VisitTimes({ form, today }: { form: ApplicationFormState; today: string }) {
  const day = today.slice(0, 10);
  const begin = form.get('visit_begin_time') as string | undefined;
  const beginDay = begin ? begin.slice(0, 10) : undefined;
  return (
    <>
      <FormItem label={labelOf(form, 'visit_begin_time')} required error={form.errors.visit_begin_time} htmlFor="af-visit_begin_time">
        <DateInput aria-label={labelOf(form, 'visit_begin_time')} value={begin} min={day} max={latestPersonVisitStart(today)} onChange={(v) => form.set('visit_begin_time', v)} />
      </FormItem>
      <FormItem label={labelOf(form, 'visit_end_time')} required error={form.errors.visit_end_time} htmlFor="af-visit_end_time">
        <DateInput aria-label={labelOf(form, 'visit_end_time')} value={form.get('visit_end_time')} min={beginDay && beginDay > day ? beginDay : day} onChange={(v) => form.set('visit_end_time', v)} />
      </FormItem>
    </>
  );
}

function PersonForm({ open, mode, row, onClose, onDone }: ScreenModalProps<PersonApplicationRow> & { mode: FormMode }) {
  const me = useMe();
  const id = mode === 'create' || !row ? undefined : row.person_application_id;
  const full = useFullApplication<PersonApplicationRow>(appointmentKinds.person, id, mode);
  const source = full.data;
  const form = useApplicationForm(() => (mode === 'create' ? { visitor_idcard_type: 1, visit_area: 1, interviewee_depart_id: me.data?.user.depart_id } : {}), appointmentKinds.person.labels);
  const { setValues } = form;
  const loaded = useRef(false);
  useEffect(() => {
    if (source && !loaded.current) {
      loaded.current = true;
      setValues(pickValues(source, FORM_KEYS));
    }
  }, [source, setValues]);
  const { saving, setSaving, ref } = useSaving();
  const today = parkNow();
  const type = form.get('visitor_type') as number | undefined;

  const submit = async (intent: SaveIntent) => {
    if (saving) return;
    const body: Values = { ...form.values };
    if (mode === 'edit' && row) body.person_application_id = row.person_application_id;
    const { errors, data } = personFormErrors(body, mode, today);
    if (Object.keys(errors).length || !data) {
      form.setErrors(errors);
      focusFirstError(ref.current);
      return;
    }
    setSaving(intent);
    const r = await saveApplication(appointmentKinds.person, mode, data, intent);
    setSaving(null);
    if (r.ok) onDone();
    else if (r.errors && Object.keys(r.errors).length) {
      form.setErrors(r.errors);
      focusFirstError(ref.current);
    }
  };

  return (
    <ApplicationModal
      kind={appointmentKinds.person}
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
      <FormSection title="访客信息">
        <Field form={form} path="visitor_name" kind="text" required />
        <Field form={form} path="visitor_gender" kind="enum" options="gender" required />
        <Field form={form} path="visitor_nation" kind="text" />
        <Field form={form} path="visitor_phone" kind="text" required />
        <Field form={form} path="visitor_company" kind="text" required />
        <Field form={form} path="visitor_address" kind="text" />
        <Field form={form} path="visitor_idcard_type" kind="enum" options="idcardType" required />
        <Field form={form} path="visitor_idcard" kind="text" required />
        {/* 照片 names the group of three photo fields, not a field: it stays a literal. */}
        <PhotoGroup form={form} label="照片" items={[{ path: 'visitor_face_photo' }, { path: 'visitor_idcard_photo1' }, { path: 'visitor_idcard_photo2' }]} />
      </FormSection>
      <FormSection title="来访信息">
        <Field
          form={form}
          path="visitor_type"
          kind="enum"
          options="personVisitorType"
          required
          wide
          help={personVisitTypeHint(type) || undefined}
          onChange={() => {
            // A new visitor type has another longest stay: the old dates may no longer hold.
            form.set('visit_begin_time', undefined);
            form.set('visit_end_time', undefined);
          }}
        />
        <Field form={form} path="visit_area" kind="enum" options="visitArea" required wide />
        <VisitTimes form={form} today={today} />
        <Field form={form} path="visit_content" kind="textarea" required />
      </FormSection>
      <FormSection title="被访人信息">
        <Field form={form} path="interviewee_name" kind="text" required />
        <Field form={form} path="interviewee_phone" kind="text" required />
        <Field form={form} path="interviewee_depart_id" kind="department" required />
      </FormSection>
    </ApplicationModal>
  );
}

export function PersonCreateModal(props: ScreenModalProps<PersonApplicationRow>) {
  return <PersonForm {...props} row={undefined} mode="create" />;
}
export function PersonEditModal(props: ScreenModalProps<PersonApplicationRow>) {
  return <PersonForm {...props} mode="edit" />;
}
export function PersonCopyModal(props: ScreenModalProps<PersonApplicationRow>) {
  return <PersonForm {...props} mode="copy" />;
}
