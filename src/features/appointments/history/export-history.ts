import type { Call } from '../../../../domain/contract';
import { downloadFile } from '../../../lib/download';
import { buildListParams } from '../../../list-screen/conventions';
import type { FieldDef, Row, Values } from '../../../list-screen';

/** POSTs the list's current filters to an export call and saves the spreadsheet it answers (spec 000 §7, §8). */
export async function exportList<R extends Row>(to: Call, filters: Values, fields: FieldDef<R>[], fallbackName: string): Promise<void> {
  const { size: _size, pn: _pn, ...body } = buildListParams(filters, fields, { pn: 1, size: 10 });
  await downloadFile({ method: 'post', path: to.path, body, fallbackName, loadingText: '正在导出…' });
}
