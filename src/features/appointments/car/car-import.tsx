import type { CarApplicationRow } from '../../../../domain/schemas/car-application';
import type { Can } from '../../../list-screen';
import { importModalFor, type ImportKind } from '../../../components/import-modal';

/** 车辆导入 (spec 000 §2 "import options for proprietor and building imports with downloadable templates"). */
const importKinds: readonly ImportKind[] = [
  {
    key: 'proprietor',
    label: '业主车辆导入',
    code: 'carApply:proprietorImport',
    template: '/carApplications/template/getProprietor',
    upload: '/carApplications/import/proprietor',
    file: '业主车辆导入模板.xlsx',
    hint: '导入的车辆申请类型为“业主”，导入后为草稿，可全部提交审核。',
    submit: { path: '/carApplications/push', code: 'carApply:commit' },
  },
  {
    key: 'build',
    label: '施工车辆导入',
    code: 'carApply:buildImport',
    template: '/carApplications/template/getBuild',
    upload: '/carApplications/import/build',
    file: '施工车辆导入模板.xlsx',
    hint: '导入的车辆申请类型为“施工”，导入后为草稿，可全部提交审核。',
    submit: { path: '/carApplications/push', code: 'carApply:commit' },
  },
];

/** The toolbar button shows when either import is allowed. */
export const canImport = (can: Can) => importKinds.some((k) => can(k.code));

export const CarImportModal = importModalFor<CarApplicationRow>({ title: '车辆导入', kinds: importKinds });
