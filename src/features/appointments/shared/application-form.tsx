import { useQuery } from '@tanstack/react-query';
import { Button, ErrorBlock, Skeleton } from 'antd-mobile';
import { useCallback, useRef, useState, type ReactNode } from 'react';
import type { EnumName, EnumOption } from '../../../../domain/enums';
import { kindCalls, type AppointmentKindDecl } from '../../../../domain/appointment-kinds';
import { call } from '../../../lib/http';
import { useIsDesktop } from '../../../lib/use-media';
import { useCan } from '../../../lib/me';
import { DraftFooter, FormItem as SharedFormItem, MESSAGES, ScreenModal, saveThenSubmit, type FieldDef, type FieldKind, type SaveIntent, type Values } from '../../../list-screen';
import { FieldInput } from '../../../list-screen/field-input';
import './appointments.css';

/**
 * The pieces both appointment forms are built from: sectioned layout with the
 * list framework's inputs and error styling, nested form state (cargo_info.x,
 * carPersonList.0.x), error maps from zod issues and server data.errors, the
 * save call with the spec's messages, and the full-row fetch for edit/copy.
 */

export type Errors = Record<string, string>;
export type FormMode = 'create' | 'edit' | 'copy';

const isIndex = (k: string) => /^\d+$/.test(k);

export function getIn(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const k of path.split('.')) {
    if (cur === null || cur === undefined || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

/** Immutable set of a dotted path; numeric segments index arrays. */
export function setIn<T>(obj: T, path: string, value: unknown): T {
  const [head, ...rest] = path.split('.');
  const src = (obj ?? (isIndex(head) ? [] : {})) as Record<string, unknown> | unknown[];
  const copy = (Array.isArray(src) ? [...src] : { ...src }) as Record<string, unknown>;
  copy[head] = rest.length ? setIn(copy[head], rest.join('.'), value) : value;
  return copy as T;
}

/** zod issues or server data.errors → first message per dotted path. */
export function toErrors(issues: ReadonlyArray<{ path?: ReadonlyArray<PropertyKey>; field?: string; message: string }>): Errors {
  const out: Errors = {};
  for (const i of issues) {
    const key = i.field ?? (i.path ?? []).map(String).join('.');
    if (key && !(key in out)) out[key] = i.message;
  }
  return out;
}

/**
 * The form's state; `labels` is the entity's catalogue (appointmentKinds[kind].labels),
 * from which each Field takes its label by path (an index in the path is skipped:
 * carPersonList.0.name reads carPersonList.name).
 */
export function useApplicationForm(initial: () => Values, labels: Readonly<Record<string, string>>) {
  const [values, setValues] = useState<Values>(initial);
  const [errors, setErrors] = useState<Errors>({});
  const set = useCallback((path: string, v: unknown) => {
    setValues((s) => setIn(s, path, v));
    setErrors((e) => {
      const drop = Object.keys(e).filter((k) => k === path || k.startsWith(`${path}.`) || path.startsWith(`${k}.`));
      if (!drop.length) return e;
      const next = { ...e };
      for (const k of drop) delete next[k];
      return next;
    });
  }, []);
  return { values, setValues, errors, setErrors, set, get: (path: string) => getIn(values, path), labels };
}
export type ApplicationFormState = ReturnType<typeof useApplicationForm>;

export function FormSection({ title, extra, error, children, note, long }: { title: string; extra?: ReactNode; error?: string; note?: ReactNode; children: ReactNode; long?: boolean }) {
  return (
    <section className={`af-section${error ? ' af-section--error' : ''}${long ? ' af-section--long' : ''}`} aria-label={title}>
      <header className="af-section__head">
        <h3 className="af-section__title">{title}</h3>
        {extra}
      </header>
      {note && <div className="af-note">{note}</div>}
      {error && (
        <div className="ef-error af-section__error" role="alert">
          {error}
        </div>
      )}
      <div className="af-grid">{children}</div>
    </section>
  );
}

export interface FormItemProps {
  label: string;
  required?: boolean;
  error?: string;
  help?: ReactNode;
  /** Spans both desktop columns (photos, long text, hints). */
  wide?: boolean;
  htmlFor?: string;
  children: ReactNode;
}

export function FormItem({ wide, ...item }: FormItemProps) {
  return <SharedFormItem {...item} className={wide ? 'af-wide' : undefined} />;
}

export interface FieldProps {
  form: ApplicationFormState;
  path: string;
  /** Only where the catalogue has no entry for the path (e.g. cargo_info's waybill fields); else read from form.labels. */
  label?: string;
  kind: FieldKind;
  options?: EnumName | EnumOption[];
  max?: number;
  unit?: string;
  required?: boolean;
  help?: ReactNode;
  wide?: boolean;
  placeholder?: string;
  disabled?: boolean;
  /** Runs after the value is stored (e.g. clearing dependent fields). */
  onChange?: (v: unknown) => void;
}

/** One input of the form: the list framework's FieldInput for the kind, under its label, with its message. */
/** A path's label in the form's catalogue; a missing one is a programming error. */
export function labelOf(form: ApplicationFormState, path: string): string {
  const label = form.labels[path] ?? form.labels[path.replace(/\.\d+\./g, '.')];
  if (!label) throw new Error(`no label for ${path}`);
  return label;
}

export function Field({ form, path, label: given, kind, options, max, unit, required, help, wide, placeholder, disabled, onChange }: FieldProps) {
  const label = given ?? labelOf(form, path);
  const id = `af-${path.replace(/\./g, '-')}`;
  const def: FieldDef = { name: path, label, kind, options, max, unit, form: placeholder ? { placeholder } : undefined };
  return (
    <FormItem label={label} required={required} error={form.errors[path]} help={help} wide={wide ?? (kind === 'images' || kind === 'textarea')} htmlFor={id}>
      <FieldInput
        field={def}
        value={form.get(path)}
        onChange={(v) => {
          form.set(path, v);
          onChange?.(v);
        }}
        purpose="form"
        mode="create"
        id={id}
        disabled={disabled}
      />
    </FormItem>
  );
}

/**
 * Several single photos under one label (face, ID front, ID back): side by
 * side with a caption each, so three one-photo fields do not take three rows.
 */
export function PhotoGroup({ form, label, items: given }: { form: ApplicationFormState; label: string; items: Array<{ path: string; label?: string; required?: boolean }> }) {
  const items = given.map((i) => ({ ...i, label: i.label ?? labelOf(form, i.path) }));
  const failed = items.some((i) => form.errors[i.path]);
  return (
    <div className={`ef-item af-wide${failed ? ' ef-item--error' : ''}`}>
      <span className="ef-label">{label}</span>
      <div className="ef-control">
        <div className="af-photos">
          {items.map((i) => (
            <div className="af-photo" key={i.path} role="group" aria-label={i.label}>
              <FieldInput field={{ name: i.path, label: i.label, kind: 'images', max: 1 }} value={form.get(i.path)} onChange={(v) => form.set(i.path, v)} purpose="form" mode="create" />
              <div className="af-photo__cap">
                {i.required && (
                  <span className="ef-req" aria-hidden>
                    *
                  </span>
                )}
                {i.label}
              </div>
              {form.errors[i.path] && (
                <div className="ef-error" role="alert">
                  {form.errors[i.path]}
                </div>
              )}
            </div>
          ))}
        </div>
      </div>
    </div>
  );
}

/** Scrolls to the first message so a person on a phone sees what to fix. */
export function focusFirstError(root: HTMLElement | null) {
  requestAnimationFrame(() => {
    const el = root?.querySelector('.ef-item--error, .af-section--error');
    el?.scrollIntoView({ block: 'center', behavior: 'smooth' });
    (el?.querySelector('input, select, textarea') as HTMLElement | null)?.focus({ preventScroll: true });
  });
}

/**
 * Fetches the whole application (drivers, cargo, dump-truck files) for edit
 * and copy: a list row may carry less than the form needs. Edit reads it with
 * the edit call (POST /get); a copy only needs to read it (GET /detail).
 */
export function useFullApplication<R>(kind: AppointmentKindDecl, id: number | undefined, mode: FormMode) {
  const calls = kindCalls[kind.kind];
  return useQuery({
    queryKey: ['appointment', kind.kind, mode === 'edit' ? 'get' : 'detail', id],
    queryFn: () => call(mode === 'edit' ? calls.get : calls.detail, { id: id! }) as Promise<R>,
    enabled: id !== undefined,
    retry: false,
    gcTime: 0,
  });
}

export interface SaveOutcome {
  ok: boolean;
  errors?: Errors;
}

/**
 * Create (also copy) or edit with the spec's messages, and for 提交审核 the
 * submit of the saved application; server field errors of the save come back
 * for the form. Once saved the form closes whether or not the submit went
 * through: the draft is in the list, and a refused submit says why.
 */
export async function saveApplication(kind: AppointmentKindDecl, mode: FormMode, body: Values, intent: SaveIntent): Promise<SaveOutcome> {
  const edit = mode === 'edit';
  const calls = kindCalls[kind.kind];
  const outcome = await saveThenSubmit(intent, {
    edit,
    // The form's values go as they are: the server's schema names what is wrong with them.
    save: async () => (await call(edit ? calls.v2Edit : calls.v2Save, body as never)).id,
    submit: (id) => call(calls.push, { id }),
  });
  return outcome.saved ? { ok: true } : { ok: false, errors: toErrors(outcome.error.fieldErrors) };
}

export const formTitle = (kind: AppointmentKindDecl, mode: FormMode) => (mode === 'edit' ? `编辑${kind.noun}` : mode === 'copy' ? `复制${kind.noun}` : `新增${kind.noun}`);

export interface ApplicationModalProps {
  kind: AppointmentKindDecl;
  mode: FormMode;
  open: boolean;
  onClose: () => void;
  onSubmit: (intent: SaveIntent) => void;
  /** The step under way (save or save and submit), if any. */
  saving: SaveIntent | null;
  /** The row fetch of edit/copy; the form shows once it has answered. */
  loading?: boolean;
  loadError?: unknown;
  onRetry?: () => void;
  formRef: React.RefObject<HTMLFormElement | null>;
  children: ReactNode;
}

/** Full-screen sheet on phones, a wide dialog on desktop, the form inside. */
export function ApplicationModal({ kind, mode, open, onClose, onSubmit, saving, loading, loadError, onRetry, formRef, children }: ApplicationModalProps) {
  const desktop = useIsDesktop();
  const can = useCan();
  const ready = !loading && !loadError;
  return (
    <ScreenModal
      open={open}
      title={formTitle(kind, mode)}
      onClose={onClose}
      width={920}
      footer={ready ? <DraftFooter onClose={onClose} onSave={onSubmit} busy={saving} canSubmit={can(kind.codes.commit)} /> : undefined}
    >
      {loading ? (
        <Skeleton.Paragraph lineCount={8} animated />
      ) : loadError ? (
        <ErrorBlock status="default" title={MESSAGES.detailFail} description={loadError instanceof Error ? loadError.message : undefined}>
          <Button size="small" color="primary" fill="outline" onClick={onRetry}>
            重试
          </Button>
        </ErrorBlock>
      ) : (
        <form
          ref={formRef}
          className={`ef pf-boxed af ${desktop ? 'ef--horizontal af--desktop' : 'ef--vertical af--phone'}`}
          noValidate
          onSubmit={(e) => {
            // Enter in a field saves the draft: submitting for approval takes its own button.
            e.preventDefault();
            onSubmit('draft');
          }}
        >
          {children}
          <button type="submit" hidden aria-hidden tabIndex={-1} />
        </form>
      )}
    </ScreenModal>
  );
}

/** The saving flag and form ref every application form holds. */
export function useSaving() {
  const [saving, setSaving] = useState<SaveIntent | null>(null);
  const ref = useRef<HTMLFormElement>(null);
  return { saving, setSaving, ref };
}

/** Form values of a row: the listed keys only, null read as empty; ids, numbers and state never come along. */
export function pickValues(row: object | undefined, keys: readonly string[]): Values {
  const out: Values = {};
  if (!row) return out;
  const r = row as Record<string, unknown>;
  for (const k of keys) if (r[k] !== null && r[k] !== undefined) out[k] = r[k];
  return out;
}

/** A JSON text column (cargo_info, dump_truck_file) may arrive as text or as an object. */
export function jsonObject(v: unknown): Record<string, unknown> | undefined {
  if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  if (typeof v === 'string' && v.trim()) {
    try {
      const parsed = JSON.parse(v) as unknown;
      return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
