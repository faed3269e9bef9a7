import { carImports, kindCalls } from '../../../../domain/appointment-kinds';
import { appointmentCodes } from '../../../../domain/appointments';
import type { CarApplicationRow } from '../../../../domain/schemas/car-application';
import type { Can } from '../../../list-screen';
import { importModalFor, type ImportKind } from '../../../components/import-modal';

/** 车辆导入 (spec 000 §2 "import options for proprietor and building imports with downloadable templates"). */
const submit = { path: kindCalls.car.push.path, code: appointmentCodes.car.commit };
const hints = { proprietor: '导入的车辆申请类型为“业主”，导入后为草稿，可全部提交审核。', build: '导入的车辆申请类型为“施工”，导入后为草稿，可全部提交审核。' };
const importKinds: readonly ImportKind[] = (['proprietor', 'build'] as const).map((key) => {
  const i = carImports[key];
  return { key, label: i.label, code: i.permission, template: i.calls.template.path, upload: i.calls.upload.path, file: i.file, hint: hints[key], submit };
});

/** The toolbar button shows when either import is allowed. */
export const canImport = (can: Can) => importKinds.some((k) => can(k.code));

export const CarImportModal = importModalFor<CarApplicationRow>({ title: '车辆导入', kinds: importKinds });
