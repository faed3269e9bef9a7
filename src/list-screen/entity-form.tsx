import { useMemo, useRef, useState } from 'react';
import { z, type ZodType } from 'zod';
import { encryptContent } from '../lib/crypto';
import { PHOTOS_PROCESSING, photosBusy, settlePhotos } from '../lib/files';
import { ApiError, call } from '../lib/http';
import { useCan } from '../lib/me';
import { useIsDesktop } from '../lib/use-media';
import { failureText, formErrorMap, formFields, formValuesToBody, MESSAGES, rowToFormValues } from './conventions';
import { DraftFooter, saveThenSubmit, type SaveIntent } from './draft-submit';
import { FormItem } from './form-item';
import { FieldInput } from './field-input';
import { ScreenModal } from './screen-modal';
import type { FieldDef, FormDef, FormMode, Row, Values } from './types';
import { showToast } from '../lib/feedback';
import { EXAMPLE_ID_NUMBER, EXAMPLE_MOBILE, looksMasked, personalKindOf } from '../../domain/personal-data';

/** The personal fields of an edit still holding the masked value the row showed: sent back as they are. */
function keptMasked(payload: Values, row: Values): Values {
  const out: Values = {};
  for (const [name, value] of Object.entries(payload)) {
    const kind = personalKindOf(name);
    if (kind && typeof value === 'string' && value === row[name] && looksMasked(kind, value)) out[name] = value;
  }
  return out;
}

/** A well-formed value of each kept field's kind, to check the rest of the form by the same schema. */
function standIns(kept: Values): Values {
  const out: Values = {};
  for (const name of Object.keys(kept)) {
    const kind = personalKindOf(name);
    if (kind === 'idNumber') out[name] = EXAMPLE_ID_NUMBER;
    else if (kind === 'phone') out[name] = EXAMPLE_MOBILE;
  }
  return out;
}

/** A field is required when its schema refuses a missing value; the asterisk then follows the shared schema. */
function requiredFields(schema: ZodType): Set<string> {
  const out = new Set<string>();
  if (schema instanceof z.ZodObject) {
    for (const [name, s] of Object.entries(schema.shape as Record<string, ZodType>)) {
      if (!s.safeParse(undefined).success) out.add(name);
    }
  }
  return out;
}

/** From this many fields a desktop form takes two columns: one column would need scrolling through a modal of mostly empty width. */
const TWO_COLUMNS_FROM = 8;
const TWO_COLUMN_WIDTH = 1000;
/** Inputs that need the whole row: photo grids, long text, the two dates of a range. */
const WIDE_KINDS = new Set(['images', 'textarea', 'dateRange', 'datetimeRange']);

export interface EntityFormProps<R extends Row> {
  open: boolean;
  mode: FormMode;
  row?: R;
  rowKey: keyof R & string;
  fields: FieldDef<R>[];
  form: FormDef<R>;
  title: string;
  onClose: () => void;
  onSaved: () => void;
}

/**
 * Create/edit form of a screen. The shared zod schema decides on submit; its
 * messages and the server's data.errors land under the fields they concern,
 * and nothing the person typed is lost on a failure.
 */
export function EntityForm<R extends Row>({ open, mode, row, rowKey, fields, form, title, onClose, onSaved }: EntityFormProps<R>) {
  const desktop = useIsDesktop();
  const visible = useMemo(() => formFields(fields, mode), [fields, mode]);
  const schema = (mode === 'edit' ? form.edit && form.schema.edit : undefined) ?? form.schema.create;
  const required = useMemo(() => requiredFields(schema), [schema]);
  // A create from a row (add child) starts from what the row hands down.
  const [values, setValues] = useState<Values>(() =>
    mode === 'edit' && row ? (form.toValues ? form.toValues(row) : rowToFormValues(fields, row)) : { ...(form.initialValues ?? {}), ...(row && form.childOf ? form.childOf(row) : {}) },
  );
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState<SaveIntent | null>(null);
  const [photoWait, setPhotoWait] = useState(false);
  const can = useCan();
  const canSubmit = !!form.submit && can(form.submit.permission);
  const bodyRef = useRef<HTMLFormElement>(null);
  const twoColumns = desktop && visible.length >= TWO_COLUMNS_FROM;

  const set = (name: string, v: unknown) => {
    setValues((s) => ({ ...s, [name]: v }));
    setErrors((e) => {
      if (!(name in e)) return e;
      const { [name]: _drop, ...rest } = e;
      return rest;
    });
  };

  const focusFirstError = () =>
    requestAnimationFrame(() => {
      const el = bodyRef.current?.querySelector('.ef-item--error');
      el?.scrollIntoView({ block: 'center', behavior: 'smooth' });
      (el?.querySelector('input, select, button, textarea') as HTMLElement | null)?.focus({ preventScroll: true });
    });

  const submit = async (intent: SaveIntent = 'draft') => {
    if (busy) return;
    const conf = mode === 'edit' ? form.edit : form.create;
    if (!conf) return;
    // 确定 pressed while photos are compressed or sent waits for them (issue 24 item 2), then saves their stored names.
    const photoFields = visible.filter((f) => f.kind === 'images' && photosBusy(values[f.name]));
    let settled = values;
    if (photoFields.length) {
      setBusy(intent);
      setPhotoWait(true);
      const done = await Promise.all(photoFields.map(async (f) => [f.name, await settlePhotos(values[f.name])] as const));
      setPhotoWait(false);
      setBusy(null);
      const refused = Object.fromEntries(done.filter(([, r]) => r.error).map(([name, r]) => [name, r.error!]));
      if (Object.keys(refused).length) {
        setErrors(refused);
        focusFirstError();
        return;
      }
      settled = { ...values, ...Object.fromEntries(done.map(([name, r]) => [name, r.value])) };
    }
    let payload = formValuesToBody(fields, mode, settled);
    if (mode === 'edit' && row && form.edit?.idParam) payload[form.edit.idParam] = (row as Record<string, unknown>)[rowKey];
    if (form.toPayload) payload = form.toPayload(payload, { mode, row });
    // Personal fields left as they showed (masked, docs/personal-data.md) go back as they are, unchecked: the server keeps the stored values.
    // They are checked as a well-formed stand-in (a refined schema cannot omit fields), and any issue they still raise is not theirs to show.
    const kept = mode === 'edit' && row ? keptMasked(payload, row as Values) : {};
    const parsed = schema.safeParse({ ...payload, ...standIns(kept) });
    const issues = parsed.success ? [] : parsed.error.issues.filter((i) => !(String(i.path[0]) in kept));
    if (issues.length) {
      setErrors(formErrorMap(fields, mode, issues));
      focusFirstError();
      return;
    }
    const data = { ...(parsed.success ? (parsed.data as Values) : payload), ...kept };
    const save = async () => (await call(conf.path, (form.encrypt ? { content: await encryptContent(data) } : data) as never)) as Values | null;
    const fail = (e: ApiError) => {
      const known = new Set(visible.map((f) => f.name));
      const fieldErrs = Object.fromEntries(Object.entries(formErrorMap(fields, mode, e.fieldErrors)).filter(([name]) => known.has(name)));
      if (Object.keys(fieldErrs).length) {
        setErrors(fieldErrs);
        focusFirstError();
      }
    };
    setBusy(intent);
    try {
      if (form.submit) {
        const to = form.submit.path;
        const outcome = await saveThenSubmit(intent, {
          edit: mode === 'edit',
          // A create answers the new row's key; an edit keeps the row's.
          save: async () => {
            const answer = await save();
            return Number(mode === 'edit' && row ? (row as Record<string, unknown>)[rowKey] : (answer?.[rowKey] ?? answer?.id));
          },
          submit: (id) => call(to, { id } as never),
        });
        if (outcome.saved) onSaved();
        else fail(outcome.error);
        return;
      }
      await save();
      showToast({ icon: 'success', content: conf.success ?? (mode === 'edit' ? MESSAGES.editOk : MESSAGES.createOk) });
      onSaved();
    } catch (err) {
      const e = err instanceof ApiError ? err : new ApiError(err instanceof Error ? err.message : String(err), 1500, 0);
      fail(e);
      showToast({ icon: 'fail', content: failureText(conf.failure ?? (mode === 'edit' ? MESSAGES.editFail : MESSAGES.createFail), e.message), duration: 3000 });
    } finally {
      setBusy(null);
    }
  };

  return (
    <ScreenModal
      open={open}
      title={title}
      onClose={onClose}
      width={twoColumns ? Math.max(form.width ?? 0, TWO_COLUMN_WIDTH) : (form.width ?? 560)}
      onOk={() => void submit()}
      okText={desktop ? '确定' : '提交'}
      okLoading={!!busy}
      okLoadingText={photoWait ? PHOTOS_PROCESSING : undefined}
      // A record under approval says which of its two steps a button takes (issue 24 item 1).
      footer={
        form.submit ? <DraftFooter onClose={onClose} onSave={(intent) => void submit(intent)} busy={busy} canSubmit={canSubmit} loadingText={photoWait ? PHOTOS_PROCESSING : undefined} /> : undefined
      }
    >
      {/* Desktop: a grid whose label tracks are as wide as the longest label in them, so no label wraps (list-screen.css .ef--grid). */}
      <form
        ref={bodyRef}
        className={`ef pf-boxed ${desktop ? `ef--horizontal ef--grid${twoColumns ? ' ef--two' : ''}` : 'ef--vertical'}`}
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        {visible.map((f) => {
          const id = `ef-${f.name}`;
          const err = errors[f.name];
          const isRequired = f.form?.required ?? required.has(f.name);
          const readOnly = mode === 'edit' && f.form?.readOnlyOnEdit;
          return (
            <FormItem key={f.name} label={f.form?.label ?? f.label} required={isRequired} error={err} help={f.form?.help} htmlFor={id} className={WIDE_KINDS.has(f.kind) ? 'ef-item--wide' : undefined}>
              <FieldInput field={f} value={values[f.name]} onChange={(v) => set(f.name, v)} purpose="form" mode={mode} id={id} disabled={!!readOnly} onEnter={() => void submit()} />
            </FormItem>
          );
        })}
        <button type="submit" hidden aria-hidden tabIndex={-1} />
      </form>
    </ScreenModal>
  );
}
