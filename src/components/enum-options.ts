import { enums, type EnumName, type EnumOption } from '../../domain/enums';

/** A field's options: a code table name from domain/enums.ts or an inline list. */
export function resolveOptions(options: EnumName | EnumOption[] | undefined): EnumOption[] {
  if (!options) return [];
  return typeof options === 'string' ? (enums[options] as EnumOption[]) : options;
}

export function optionLabel(options: EnumOption[], value: unknown): string {
  if (value === undefined || value === null || value === '') return '';
  const hit = options.find((o) => String(o.value) === String(value));
  return hit ? hit.label : String(value);
}
