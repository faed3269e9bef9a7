import { Tag } from 'antd-mobile';
import { createContext, useContext, type ComponentType, type ReactNode } from 'react';
import { AppState, isDumpTruckModel, type AppointmentKind } from '../../../../domain/appointments';
import { enums, enumLabel, type EnumName } from '../../../../domain/enums';
import { dumpTruckFileKeys, type CarApplicationRow, type CarPersonRow } from '../../../../domain/schemas/car-application';
import type { PersonApplicationRow } from '../../../../domain/schemas/person-application';
import { ImageList } from '../../../components/image-viewer';
import { splitFileNames } from '../../../lib/files';
import { useDepartments, useVehicleTypes } from '../../../lib/preloads';
import { PassCard } from './pass-card';
import { VisitRoute } from './visit-route';
import { ProcessTimeline } from '../../../components/process/process-timeline';
import { appointmentKinds, kindCalls, rowId } from '../../../../domain/appointment-kinds';
import { visitRange } from './visit-time';
import './application-detail.css';
import { PlateBadge } from '../../../components/plate-badge';
import { useRevealWrap, type RevealTarget } from '../../../list-screen/reveal-field';

/**
 * Read-only application views (spec 000 §2 detail, §4 review form): the list
 * screens' detail, the review form and the history details all show an
 * application through these, so it reads the same everywhere.
 */

/** The hazardous-goods fields of cargo_info (spec 000 §3) with the labels of a Chinese dangerous-goods waybill. */
export const cargoInfoFields: Array<{ key: string; label: string; kind?: 'number' | 'phone' | 'date' | 'images' | 'unit' | 'plateColor'; unit?: string }> = [
  { key: 'cargo_number', label: 'UN编号' },
  { key: 'cargo_name', label: '货物名称' },
  { key: 'cargo_quantity', label: '货物数量', kind: 'number' },
  { key: 'cargo_unit', label: '货物单位', kind: 'unit' },
  { key: 'enterprise', label: '托运企业' },
  { key: 'unified_social_credit_code', label: '统一社会信用代码' },
  { key: 'business_license_number', label: '道路运输经营许可证号' },
  { key: 'contact_phone', label: '联系电话', kind: 'phone' },
  { key: 'license_plate_color', label: '车牌颜色', kind: 'plateColor' },
  { key: 'vehicle_transport_license', label: '车辆道路运输证号' },
  { key: 'trailer_license', label: '挂车号牌' },
  { key: 'trailer_trasport_license', label: '挂车道路运输证号' },
  { key: 'tank_volume', label: '罐体容积', kind: 'number', unit: 'm³' },
  { key: 'tank_report', label: '罐体检验报告编号' },
  { key: 'driver', label: '驾驶员' },
  { key: 'driver_qualification_certificate', label: '驾驶员从业资格证号' },
  { key: 'driver_phone', label: '驾驶员电话', kind: 'phone' },
  { key: 'supercargo', label: '押运员' },
  { key: 'supercargo_qualification_certificate', label: '押运员从业资格证号' },
  { key: 'supercargo_phone', label: '押运员电话', kind: 'phone' },
  { key: 'shipper', label: '托运人' },
  { key: 'shipper_phone', label: '托运人电话', kind: 'phone' },
  { key: 'recipient', label: '收货人' },
  { key: 'recipient_phone', label: '收货人电话', kind: 'phone' },
  { key: 'carrier', label: '承运人' },
  { key: 'carrier_phone', label: '承运人电话', kind: 'phone' },
  { key: 'shipment_date', label: '起运日期', kind: 'date' },
  { key: 'shipment_addr', label: '起运地' },
  { key: 'destination', label: '目的地' },
  { key: 'annex', label: '附件', kind: 'images' },
];

/** Units a hazardous load is counted in. */
export const cargoUnits = ['吨', '千克', '升', '立方米', '件'];

/** A JSON text column may reach the UI as text or as an object. */
function asObject(v: unknown): Record<string, unknown> | null {
  if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  if (typeof v === 'string' && v.trim()) {
    try {
      const o = JSON.parse(v) as unknown;
      return o && typeof o === 'object' ? (o as Record<string, unknown>) : null;
    } catch {
      return null;
    }
  }
  return null;
}

const blank = (v: unknown) => v === undefined || v === null || v === '';
const EMPTY = <span className="ad-dash">-</span>;

/** The shown entity's label catalogue (appointmentKinds[kind].labels): a line names its field, the catalogue names the line. */
const Labels = createContext<Readonly<Record<string, string>>>({});

function useLabel(name: string): string {
  const label = useContext(Labels)[name];
  if (!label) throw new Error(`no label for ${name}`);
  return label;
}

/** A masked ID number or phone of the record shown, with 查看 beside it for a holder of pii:view (list-screen/reveal-field.tsx). */
function Personal({ target, field, value, label: given }: { target: RevealTarget | undefined; field: string; value: string | null | undefined; label?: string }) {
  const catalogue = useContext(Labels);
  const wrap = useRevealWrap(target);
  if (value === undefined || value === null || value === '') return EMPTY;
  return <>{wrap(field, given ?? catalogue[field] ?? field, value, value)}</>;
}

/** One line: `name` is the field it shows (its label comes from the catalogue); `label` only for a line that is no field. */
function Item({ name, label: given, children, wide }: { name?: string; label?: string; children: ReactNode; wide?: boolean }) {
  const catalogue = useContext(Labels);
  const label = given ?? (name ? catalogue[name] : undefined);
  if (!label) throw new Error(`no label for ${name ?? 'a detail line'}`);
  const empty = children === undefined || children === null || children === '' || children === false;
  return (
    <div className={`ad-item${wide ? ' ad-item--wide' : ''}`}>
      <dt className="ad-label">{label}</dt>
      <dd className="ad-value">{empty ? EMPTY : children}</dd>
    </div>
  );
}

// Section titles (申请信息, 访客信息, 车辆信息…) group fields and name none: they stay literals.
function Section({ title, children, extra, long }: { title: string; children: ReactNode; extra?: ReactNode; long?: boolean }) {
  return (
    <section className={`ad-section${long ? ' ad-section--long' : ''}`} aria-label={title}>
      <h4 className="ad-title">
        <span>{title}</span>
        {extra}
      </h4>
      <dl className="ad-grid">{children}</dl>
    </section>
  );
}

/** Thumbnails, or nothing (the line then shows its dash). */
const photos = (value: unknown) => (splitFileNames(value).length ? <ImageList value={String(value)} /> : null);

const label = (name: EnumName, v: unknown) => (blank(v) ? null : enumLabel(name, v as number));

function StateTag({ state }: { state: number }) {
  const o = enums.applicationState.find((s) => s.value === state);
  return (
    <Tag color={o?.color ?? 'default'} fill="outline" className="ad-tag">
      {o?.label ?? String(state)}
    </Tag>
  );
}

function Department({ id, name }: { id: number | null | undefined; name?: string | null }) {
  const { data } = useDepartments();
  if (name) return <>{name}</>;
  if (id === null || id === undefined) return null;
  return <>{data?.find((d) => d.depart_id === id)?.name ?? String(id)}</>;
}

function VehicleTypeName({ id, name }: { id: number | null | undefined; name?: string | null }) {
  const { data } = useVehicleTypes();
  if (name) return <>{name}</>;
  if (id === null || id === undefined) return null;
  return <>{data?.find((t) => t.id === id)?.name ?? String(id)}</>;
}

/** The status lines every application has: state, delay, revoke reason, times. */
function StatusSection({ row, typeTable }: { row: CarApplicationRow | PersonApplicationRow; typeTable: EnumName }) {
  return (
    <Section title="申请信息">
      <Item name="application_number">{row.application_number}</Item>
      <Item name="state">{row.state === undefined || row.state === null ? null : <StateTag state={row.state} />}</Item>
      <Item name="visitor_type">{label(typeTable, row.visitor_type)}</Item>
      <Item name="visit_area">{label('visitArea', row.visit_area)}</Item>
      <Item name="is_delayed">{label('delayed', row.is_delayed)}</Item>
      {row.is_delayed === 1 && <Item name="delay_reason">{row.delay_reason}</Item>}
      {row.revoke_reason && <Item name="revoke_reason">{row.revoke_reason}</Item>}
      {row.in_black_list === 1 && (
        <Item name="in_black_list">
          <Tag color="danger" fill="outline" className="ad-tag">
            在黑名单中
          </Tag>
        </Item>
      )}
      <Item name="create_time">{row.create_time}</Item>
      {row.update_user_name && <Item name="update_user_name">{row.update_user_name}</Item>}
    </Section>
  );
}

export function PersonApplicationDetail({ row }: { row: PersonApplicationRow }) {
  const target: RevealTarget = { record: 'person_application', id: row.person_application_id };
  return (
    <Labels.Provider value={appointmentKinds.person.labels}>
      <div className="ad">
        <StatusSection row={row} typeTable="personVisitorType" />
        <Section title="访客信息">
          <Item name="visitor_name">{row.visitor_name}</Item>
          <Item name="visitor_gender">{label('gender', row.visitor_gender)}</Item>
          <Item name="visitor_nation">{row.visitor_nation}</Item>
          <Item name="visitor_phone">
            <Personal target={target} field="visitor_phone" value={row.visitor_phone} />
          </Item>
          <Item name="visitor_company">{row.visitor_company}</Item>
          <Item name="visitor_address">{row.visitor_address}</Item>
          <Item name="visitor_idcard_type">{label('idcardType', row.visitor_idcard_type)}</Item>
          <Item name="visitor_idcard">
            <Personal target={target} field="visitor_idcard" value={row.visitor_idcard} />
          </Item>
          <Item name="visitor_face_photo">{photos(row.visitor_face_photo)}</Item>
          <Item name="visitor_idcard_photo1">{photos(row.visitor_idcard_photo1)}</Item>
          <Item name="visitor_idcard_photo2">{photos(row.visitor_idcard_photo2)}</Item>
        </Section>
        <Section title="来访信息">
          {/* 来访时间 is one line over the begin and end fields, not a field: a literal. */}
          <Item label="来访时间">{visitRange(row.visit_begin_time, row.visit_end_time)}</Item>
          <Item name="visit_content" wide>
            {row.visit_content}
          </Item>
        </Section>
        <Section title="被访人信息">
          <Item name="interviewee_name">{row.interviewee_name}</Item>
          <Item name="interviewee_phone">
            <Personal target={target} field="interviewee_phone" value={row.interviewee_phone} />
          </Item>
          <Item name="interviewee_depart_id">
            <Department id={row.interviewee_depart_id} name={row.interviewee_depart_name} />
          </Item>
        </Section>
      </div>
    </Labels.Provider>
  );
}

function CarPersonCard({ p, index }: { p: CarPersonRow; index: number }) {
  const faces = splitFileNames(p.face_photo);
  const phone = useLabel('carPersonList.phone');
  const idCard = useLabel('carPersonList.id_card');
  const pqc = useLabel('carPersonList.pqc_number');
  const person: RevealTarget | undefined = p.car_person_id ? { record: 'car_person', id: p.car_person_id } : undefined;
  return (
    <li className="ad-person">
      <div className="ad-person__head">
        <span className="ad-person__name">{p.name || `司乘人员${index + 1}`}</span>
        {!blank(p.type) && (
          <Tag color="primary" fill="outline" className="ad-tag">
            {enumLabel('driverType', p.type)}
          </Tag>
        )}
        {!blank(p.gender) && <span className="ad-person__meta">{enumLabel('gender', p.gender)}</span>}
      </div>
      <div className="ad-person__body">
        <dl className="ad-person__lines">
          <div>
            <dt>{phone}</dt>
            <dd>
              <Personal target={person} field="phone" value={p.phone} label={phone} />
            </dd>
          </div>
          <div>
            <dt>{blank(p.idcard_type) ? idCard : enumLabel('idcardType', p.idcard_type)}</dt>
            <dd>
              <Personal target={person} field="id_card" value={p.id_card} label={idCard} />
            </dd>
          </div>
          <div>
            <dt>{pqc}</dt>
            <dd>{p.pqc_number || '-'}</dd>
          </div>
        </dl>
        {faces.length > 0 && <ImageList value={p.face_photo} className="ad-person__face" />}
      </div>
    </li>
  );
}

function cargoValue(f: (typeof cargoInfoFields)[number], v: unknown): ReactNode {
  if (blank(v)) return null;
  if (f.kind === 'images') return photos(v);
  if (f.kind === 'number' && f.unit) return `${String(v)} ${f.unit}`;
  return String(v);
}

export function CarApplicationDetail({ row }: { row: CarApplicationRow }) {
  const target: RevealTarget = { record: 'car_application', id: row.car_application_id };
  const persons = row.carPersonList ?? [];
  const cargo = asObject(row.cargo_info);
  const dump = asObject(row.dump_truck_file);
  const hasDump = !!dump && dumpTruckFileKeys.some((k) => splitFileNames(dump[k]).length > 0);
  const showDump = isDumpTruckModel(row.vehicle_type_name) || hasDump;
  const showCargo = !blank(row.cargo_type) || !blank(row.cargo_name) || !blank(row.car_load);
  return (
    <Labels.Provider value={appointmentKinds.car.labels}>
      <div className="ad">
        <StatusSection row={row} typeTable="carVisitorType" />
        <Section title="申请人信息">
          <Item name="applicant_name">{row.applicant_name}</Item>
          <Item name="applicant_gender">{label('gender', row.applicant_gender)}</Item>
          <Item name="visitor_idcard_type">{label('idcardType', row.visitor_idcard_type)}</Item>
          <Item name="applicant_idcard">
            <Personal target={target} field="applicant_idcard" value={row.applicant_idcard} />
          </Item>
          <Item name="applicant_phone">
            <Personal target={target} field="applicant_phone" value={row.applicant_phone} />
          </Item>
          <Item name="applicant_face_photo">{photos(row.applicant_face_photo)}</Item>
        </Section>
        {persons.length > 0 && (
          <section className="ad-section" aria-label="司乘人员">
            <h4 className="ad-title">
              <span>司乘人员</span>
              <span className="ad-count">{persons.length}人</span>
            </h4>
            <ul className="ad-persons">
              {persons.map((p, i) => (
                <CarPersonCard key={p.car_person_id ?? i} p={p} index={i} />
              ))}
            </ul>
          </section>
        )}
        <Section title="来访信息">
          <Item name="visitor_company">{row.visitor_company}</Item>
          {/* 来访时间 is one line over the begin and end fields, not a field: a literal. */}
          <Item label="来访时间">{visitRange(row.visitor_begin_time, row.visitor_end_time)}</Item>
          <Item name="interviewee_name">{row.interviewee_name}</Item>
          <Item name="interviewee_phone">
            <Personal target={target} field="interviewee_phone" value={row.interviewee_phone} />
          </Item>
          <Item name="interviewee_depart_id">
            <Department id={row.interviewee_depart_id} name={row.interviewee_depart_name} />
          </Item>
          <Item name="visitor_content" wide>
            {row.visitor_content}
          </Item>
        </Section>
        <VisitRoute id={row.car_application_id} />
        <Section title="车辆信息">
          <Item name="license_plate">{row.license_plate && <PlateBadge plate={row.license_plate} color={row.license_plate_color} />}</Item>
          <Item name="license_plate_color">{label('plateColor', row.license_plate_color)}</Item>
          <Item name="vehicle_type_id">
            <VehicleTypeName id={row.vehicle_type_id} name={row.vehicle_type_name} />
          </Item>
          <Item name="vehicle_license_number">{row.vehicle_license_number}</Item>
          <Item name="engine_number">{row.engine_number}</Item>
          <Item name="trailer_license">{row.trailer_license}</Item>
          {showCargo && (
            <>
              <Item name="cargo_type">{blank(row.cargo_type) ? null : row.cargo_type === 1 ? '危险货物' : '普通货物'}</Item>
              <Item name="cargo_name">{row.cargo_name}</Item>
              <Item name="car_load">{blank(row.car_load) ? null : `${row.car_load} 吨`}</Item>
            </>
          )}
          <Item name="remark" wide>
            {row.remark}
          </Item>
          <Item name="vehicle_img" wide>
            {photos(row.vehicle_img)}
          </Item>
          <Item name="img12123" wide>
            {photos(row.img12123)}
          </Item>
          {splitFileNames(row.blind_video_photo).length > 0 && (
            <Item name="blind_video_photo" wide>
              {photos(row.blind_video_photo)}
            </Item>
          )}
          {splitFileNames(row.register_record_photo).length > 0 && (
            <Item name="register_record_photo" wide>
              {photos(row.register_record_photo)}
            </Item>
          )}
        </Section>
        {row.cargo_type === 1 && (
          <Section title="危险货物信息" long>
            {cargoInfoFields.map((f) => (
              <Item key={f.key} label={f.label} wide={f.kind === 'images'}>
                {cargoValue(f, cargo?.[f.key])}
              </Item>
            ))}
          </Section>
        )}
        {showDump && (
          <Section title="自卸车资料">
            {dumpTruckFileKeys.map((k) => (
              <Item key={k} name={`dump_truck_file.${k}`}>
                {photos(dump?.[k])}
              </Item>
            ))}
          </Section>
        )}
      </div>
    </Labels.Provider>
  );
}

/**
 * The list screens' detail: an approved application's pass first (what its
 * visitor needs at the gate), the application, then its approval process once
 * it has one (spec 000 §4: not for drafts, state 0, nor withdrawn ones, state 4).
 */
/** Each kind's detail view, asked by kind. */
export const applicationDetails: Record<AppointmentKind, ComponentType<{ row: CarApplicationRow }> | ComponentType<{ row: PersonApplicationRow }>> = {
  car: CarApplicationDetail,
  person: PersonApplicationDetail,
};

export function ApplicationDetailWithProcess({ kind, row }: { kind: AppointmentKind; row: CarApplicationRow | PersonApplicationRow }) {
  const Detail = applicationDetails[kind] as ComponentType<{ row: CarApplicationRow | PersonApplicationRow }>;
  const showProcess = row.state !== 0 && row.state !== 4;
  return (
    <>
      {row.state === AppState.APPROVED && <PassCard kind={kind} id={rowId(kind, row)} />}
      <Detail row={row} />
      {showProcess && (
        <section className="ad-section ad-process" aria-label="审批流程">
          <h4 className="ad-title">
            <span>审批流程</span>
          </h4>
          <ProcessTimeline process={kindCalls[kind].process} id={rowId(kind, row)} />
        </section>
      )}
    </>
  );
}
