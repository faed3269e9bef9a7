import { carListApi, carListImportApi, personListApi, type CarListRow, type PersonListRow } from '../../../domain/schemas/black-white-list';
import { enumLabel } from '../../../domain/enums';
import { UploadOutline } from 'antd-mobile-icons';
import { importModalFor } from '../../components/import-modal';
import { VehicleTypeSelect } from '../../components/vehicle-type-select';
import type { DeclaredField } from '../../list-screen';
import { registerListScreen, registerQueueScreen, type RegisterScreens } from './approvable-screens';

/** Vehicle and person black/white lists (spec 001 §2): their lists and approval queues, from two declarations. */

const range = (r: { start_time: string | null; end_time: string | null }) => `${r.start_time?.slice(0, 10) ?? '不限'} 至 ${r.end_time?.slice(0, 10) ?? '不限'}`;

/** Fields both lists share: type, validity dates, reason, state and the filer. */
function listFields<R extends CarListRow | PersonListRow>(): DeclaredField<R>[] {
  return [
    { name: 'type', kind: 'enum', options: 'blackWhiteType', tag: true, width: 96 },
    {
      name: 'valid_time',
      label: '有效期',
      kind: 'dateRange',
      hideInSearch: true,
      width: 210,
      render: (r) => range(r),
      form: { label: '有效期', rangeKeys: ['start_time', 'end_time'], fromToday: true, required: true },
    },
    { name: 'validity', kind: 'enum', options: 'listValidity', hideInTable: true, hideInCard: true, hideInForm: true, hideInDetail: true },
    { name: 'in_reason', kind: 'textarea', hideInSearch: true, width: 200 },
    { name: 'status', kind: 'enum', options: 'applicationState', tag: true, hideInForm: true, width: 96, search: { default: -1 } },
    { name: 'revoke_reason', kind: 'text', hideInSearch: true, hideInTable: true, hideInCard: true, hideInForm: true, render: (r) => r.revoke_reason || '-' },
    { name: 'create_user_name', label: '创建人', kind: 'text', hideInSearch: true, hideInForm: true, hideInCard: true, width: 96, render: (r) => r.create_user_name ?? '-' },
    { name: 'create_time', kind: 'text', hideInSearch: true, hideInForm: true, hideInCard: true, width: 170 },
  ];
}

export const carList: RegisterScreens<CarListRow> = {
  key: 'registers.car-list',
  title: '车辆黑白名单',
  contract: carListApi,
  revokeEffect: '已生效的名单随之失效',
  fields: [
    { name: 'license_plate', kind: 'text', width: 110 },
    { name: 'vehicle_type_id', kind: 'custom', input: VehicleTypeSelect, hideInSearch: true, width: 130, render: (r) => r.vehicle_type_name ?? '-', form: { placeholder: '请选择车型' } },
    ...listFields<CarListRow>(),
  ],
  card: { title: 'license_plate', extra: 'status' },
  toolbar: [
    {
      key: 'import',
      label: '导入',
      type: 'modal',
      permission: carListApi.codes.add,
      icon: <UploadOutline />,
      component: importModalFor<CarListRow>({
        title: '车辆黑白名单导入',
        kinds: [
          {
            key: 'carList',
            label: '车辆黑白名单导入',
            code: carListApi.codes.add,
            template: carListImportApi.template.path,
            upload: carListImportApi.upload.path,
            file: '车辆黑白名单导入模板.xlsx',
            hint: '导入后为您名下的草稿，可全部提交审核。',
            submit: { path: carListApi.push.path, code: carListApi.codes.commit },
          },
        ],
        // Spec 001 §7: the list reloads one second after an import.
        reloadAfterMs: 1000,
      }),
    },
  ],
  name: (r) => r.license_plate,
  subtitle: (r) => `${enumLabel('blackWhiteType', r.type)} · ${range(r)}`,
};

export const personList: RegisterScreens<PersonListRow> = {
  reveal: 'person_black_white_list',
  key: 'registers.person-list',
  title: '人员黑白名单',
  contract: personListApi,
  revokeEffect: '已生效的名单随之失效',
  fields: [
    { name: 'name', kind: 'text', width: 96 },
    { name: 'gender', kind: 'enum', options: 'gender', hideInSearch: true, hideInCard: true, width: 64 },
    { name: 'idcard_type', kind: 'enum', options: 'idcardType', hideInSearch: true, hideInTable: true, hideInCard: true },
    { name: 'idcard', kind: 'text', width: 180 },
    { name: 'face_photo', kind: 'images', max: 1, hideInSearch: true, hideInTable: true, hideInCard: true },
    ...listFields<PersonListRow>(),
  ],
  card: { title: 'name', extra: 'status' },
  name: (r) => r.name,
  subtitle: (r) => `${enumLabel('blackWhiteType', r.type)} · ${r.idcard}`,
};

export const carListScreen = registerListScreen(carList);
export const personListScreen = registerListScreen(personList);
export const carListQueueScreen = registerQueueScreen(carList);
export const personListQueueScreen = registerQueueScreen(personList);
