import { Tag } from 'antd-mobile';
import { lazy, Suspense, type ReactNode } from 'react';
import { enums } from '../../domain/enums';
import { optionLabel, resolveOptions } from '../components/enum-options';
import { splitFileNames } from '../lib/files';
import { useDepartments } from '../lib/preloads';
import { cellValue } from './conventions';
import type { FieldDef, Row } from './types';

const EMPTY = <span className="ls-dash">-</span>;
// Loaded with the first photo field shown, so that list screens without one do not carry the image viewer.
const ImageList = lazy(() => import('../components/image-viewer').then((m) => ({ default: m.ImageList })));
const ImageCount = lazy(() => import('../components/image-viewer').then((m) => ({ default: m.ImageCount })));

function DepartmentName({ id }: { id: unknown }) {
  const { data } = useDepartments();
  const hit = data?.find((d) => d.depart_id === Number(id));
  return <>{hit ? hit.name : id === undefined || id === null ? '-' : String(id)}</>;
}

/**
 * The text a cell shows, when it is text: what the table measures to fit its
 * columns. Undefined for a cell drawn otherwise (a department name still
 * loading, photos, a render function's markup), whose width is not known.
 */
export function fieldText<R extends Row>(field: FieldDef<R>, row: R): string | undefined {
  if (field.render) {
    const drawn = field.render(row);
    return typeof drawn === 'string' || typeof drawn === 'number' ? String(drawn) : undefined;
  }
  const v = cellValue(row, field);
  if (v === undefined || v === null || v === '') return '-';
  switch (field.kind) {
    case 'enum':
      return optionLabel(resolveOptions(field.options), v);
    case 'yesNo':
      return optionLabel(enums.yesNo, v);
    case 'department':
    case 'images':
      return undefined;
    case 'password':
      return '••••••';
    case 'dateRange':
    case 'datetimeRange':
      return Array.isArray(v) ? `${v[0] ?? ''} 至 ${v[1] ?? ''}` : String(v);
    case 'number':
      return field.unit ? `${String(v)} ${field.unit}` : String(v);
    default:
      return String(v);
  }
}

/** A field's value as the table cell, card line and detail line show it; `variant="detail"` shows images as thumbnails rather than a count. */
export function FieldValue<R extends Row>({ field, row, variant }: { field: FieldDef<R>; row: R; variant?: 'detail' }): ReactNode {
  if (field.render) return field.render(row);
  const v = cellValue(row, field);
  if (v === undefined || v === null || v === '') return EMPTY;
  switch (field.kind) {
    case 'enum': {
      const options = resolveOptions(field.options);
      const label = optionLabel(options, v);
      if (!field.tag) return label;
      const color = options.find((o) => String(o.value) === String(v))?.color ?? 'default';
      return (
        <Tag color={color} fill="outline" className="ls-tag">
          {label}
        </Tag>
      );
    }
    case 'department':
      return <DepartmentName id={v} />;
    case 'images':
      return <Suspense fallback={`${splitFileNames(v).length}张`}>{variant === 'detail' ? <ImageList value={String(v)} /> : <ImageCount value={String(v)} />}</Suspense>;
    default:
      return fieldText(field, row);
  }
}
