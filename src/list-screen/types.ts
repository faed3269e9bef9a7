import type { ComponentType, ReactNode } from 'react';
import type { ZodType } from 'zod';
import type { Call } from '../../domain/contract';
import type { EnumName, EnumOption } from '../../domain/enums';
import type { PermissionCode } from '../../domain/permissions';
import type { FieldLabels } from '../../domain/schemas/common';
import type { RevealRecord } from '../../domain/schemas/pii';

/** Where a screen sends a call: the declared call of domain/ (domain/contract.ts), which says its own method and path. */
export type Endpoint = Call;

/**
 * One declarative description per list screen (DESIGN.md §6). A field is
 * declared once; its kind drives the filter input, the table cell / card line,
 * the form input and the detail line, each of which a hide* flag can drop.
 */
export type FieldKind =
  | 'text'
  | 'password'
  | 'textarea'
  | 'number'
  /** One value of a code table from domain/enums.ts (or inline options). */
  | 'enum'
  /** A 0/1 choice shown as 是/否. */
  | 'yesNo'
  | 'date'
  | 'dateRange'
  | 'datetimeRange'
  /** depart_id picked from the department tree (useDepartments). */
  | 'department'
  /** Stored image names joined by ';' (src/components/image-upload.tsx); `max` caps the count. */
  | 'images'
  | 'custom';

export type Can = (code: PermissionCode | undefined) => boolean;
/** Rows are API objects (interfaces from domain/); the screen reads them by key. */
export type Row = object;
export type Values = Record<string, unknown>;
export type FormMode = 'create' | 'edit';

/** Props of a custom filter / form input (kind 'custom'). */
export interface FieldInputProps {
  value?: unknown;
  onChange?: (value: unknown) => void;
  placeholder?: string;
  disabled?: boolean;
}

export interface FieldDef<R extends Row = Row> {
  /** Wire name of the filter param and of the form value (camelCase as the API takes it). */
  name: string;
  label: string;
  kind: FieldKind;
  /** Where the row holds the value (snake_case as the API answers it); defaults to `name`. */
  dataIndex?: keyof R & string;
  /** The record's column a masked value is revealed from (domain/schemas/pii.ts revealableFields), where the answer names it otherwise; defaults to the dataIndex. */
  revealColumn?: string;
  /** Code table for kind 'enum'. */
  options?: EnumName | EnumOption[];
  /** Shows an enum value as a coloured tag (status columns). */
  tag?: boolean;
  /** Unit suffix in the form input and after values (e.g. 'km/h'). */
  unit?: string;
  /** Most images a kind 'images' field takes (default 20). */
  max?: number;
  /** Custom cell / card line / detail line. */
  render?: (row: R) => ReactNode;
  /** Custom input for kind 'custom' (filter and form). */
  input?: ComponentType<FieldInputProps>;

  hideInSearch?: boolean;
  hideInTable?: boolean;
  hideInCard?: boolean;
  hideInForm?: boolean;
  hideInDetail?: boolean;

  /**
   * Column width in px when the desktop table has room; narrower panes shrink it down to its header
   * (the card's title and extra columns keep theirs). Every cell is one line, cut with an ellipsis and
   * shown whole on hover and in the detail.
   */
  width?: number;
  align?: 'left' | 'center' | 'right';
  /** Keeps the column visible while the table scrolls sideways. */
  fixed?: 'left';

  search?: {
    /** Default filter value; 'status' filters default to -1 (全部) without saying so. */
    default?: unknown;
    placeholder?: string;
    /** Range kinds: the two wire params the range is split into. */
    rangeKeys?: [string, string];
    /** Label of the 'all' choice of an enum filter. */
    allLabel?: string;
  };

  form?: {
    /** Label in the form when the column's label says more (e.g. a unit). */
    label?: string;
    /** Show the input only when creating or only when editing. */
    only?: FormMode;
    placeholder?: string | Partial<Record<FormMode, string>>;
    /** Read-only in edit mode. */
    readOnlyOnEdit?: boolean;
    /** Overrides the asterisk otherwise derived from the zod schema. */
    required?: boolean;
    /** Help text under the input. */
    help?: string;
    /** Date kinds: days before today cannot be picked (spec 001's list dates). */
    fromToday?: boolean;
    rangeKeys?: [string, string];
  };
}

/** What a custom modal (row action, toolbar action, batch action) receives. */
export interface ScreenModalProps<R extends Row = Row> {
  open: boolean;
  row?: R;
  rows?: R[];
  onClose: () => void;
  /** Closes the modal and reloads the list. */
  onDone: () => void;
}

interface ActionBase<R extends Row> {
  key: string;
  label: string;
  /** Hidden when the signed-in user lacks the code (useCan). */
  permission?: PermissionCode;
  /** State rule: the same domain/ function the server uses to refuse the call plugs in here. */
  visible?: (row: R, can: Can) => boolean;
  danger?: boolean;
  /** Asks before acting. */
  confirm?: string | ((row: R) => string);
}

export type RowAction<R extends Row = Row> = ActionBase<R> &
  (
    | { type: 'edit' }
    | { type: 'detail' }
    /** The create form, started from this row (form.childOf): e.g. a department's child. */
    | { type: 'createFrom' }
    /** Delete with the shared messages ('删除成功！' / '删除失败'). */
    | { type: 'delete'; path: Endpoint; body: (row: R) => Values }
    | { type: 'call'; path: Endpoint; body: (row: R) => Values; success: string; failure: string }
    | { type: 'modal'; component: ComponentType<ScreenModalProps<R>> }
  );

export type ToolbarAction<R extends Row = Row> = {
  key: string;
  label: string;
  permission?: PermissionCode;
  /** Beside `permission`: e.g. one button that stands for several codes, shown when any is held. */
  visible?: (can: Can) => boolean;
  /** Filled button on desktop; on phones the screen's main button when there is no 'create' action. */
  primary?: boolean;
  /** Icon before the label (a 'create' action has the add icon already). */
  icon?: ReactNode;
} & ({ type: 'create' } | { type: 'modal'; component: ComponentType<ScreenModalProps<R>> } | { type: 'run'; run: (ctx: { filters: Values; reload: () => void }) => void | Promise<void> });

export type BatchAction<R extends Row = Row> = {
  key: string;
  label: string;
  permission?: PermissionCode;
  danger?: boolean;
  confirm?: string;
} & ({ type: 'modal'; component: ComponentType<ScreenModalProps<R>> } | { type: 'call'; path: Endpoint; body: (rows: R[]) => Values; success: string; failure: string });

export interface FormDef<R extends Row = Row> {
  /** zod schemas from domain/, the same the server parses with. */
  schema: { create: ZodType; edit?: ZodType };
  create?: { path: Endpoint; title?: string; success?: string; failure?: string };
  edit?: {
    path: Endpoint;
    title?: string;
    success?: string;
    failure?: string;
    /** Body key that carries the row key on update (userId, id...). */
    idParam?: string;
  };
  /**
   * A record under approval: the form offers 保存草稿 and 提交审核, the second
   * saving then posting { id } of the saved row here (draft-submit.tsx).
   */
  submit?: { path: Endpoint; permission?: PermissionCode };
  /** Body sent as { content: JWE(values) } (src/lib/crypto.ts). */
  encrypt?: boolean;
  /** Defaults for a new record. */
  initialValues?: Values;
  /** Values a record created from a row (a 'createFrom' action) starts with, e.g. its parent. */
  childOf?: (row: R) => Values;
  /** Row → form values; defaults to each form field's dataIndex. */
  toValues?: (row: R) => Values;
  /** Last touch before validation (values already include idParam in edit mode). */
  toPayload?: (values: Values, ctx: { mode: FormMode; row?: R }) => Values;
  /** Modal width on desktop (560 default); a form of many fields is laid out in two columns at least 1000 px wide. */
  width?: number;
}

export interface ScreenDef<R extends Row = Row> {
  /** Stable key: query key, sessionStorage key of the remembered filters. */
  key: string;
  title: string;
  /** One line under the title saying what the screen is for, where two screens could be taken for one another. */
  description?: string;
  list: {
    /** The call answering { list, total } for { size, pn, ...filters }, or an array for the filters (`answer: 'array'`). */
    path: Endpoint;
    /** 'array': the whole filtered list at once (trees, small registers), paged on the client. */
    answer?: 'page' | 'array';
    /** Orders or reshapes the rows before they are shown: a tree depth first, a task row laid over the record it wraps. */
    arrange?: (rows: R[]) => R[];
    /** false: an array answer is shown whole (a tree is not cut into pages), with its '共 N 条'. */
    paged?: boolean;
    /** Without it the list is not queried and the screen says so. */
    permission?: PermissionCode;
    /** Extra fixed params sent with every call. */
    params?: Values;
  };
  rowKey: keyof R & string;
  fields: FieldDef<R>[];
  /**
   * The row's key and its state: on phone cards the title line and the tag at its right; in the desktop
   * table the state column sits right after the key column, and neither is narrowed to fit.
   */
  card?: { title: string; extra?: string };
  rowActions?: RowAction<R>[];
  toolbar?: ToolbarAction<R>[];
  /** Row selection with batch actions, shown only while rows are selected and the permission is held. */
  batch?: BatchAction<R>[];
  form?: FormDef<R>;
  /** The record its rows are, for revealing a masked ID number or phone in the detail (domain/schemas/pii.ts); the id is the row's rowKey. */
  reveal?: RevealRecord;
  /** Double-click / tap opens it. Without `fetch` the list row is shown. */
  detail?: {
    title?: string;
    fetch?: (row: R) => Promise<R>;
    render?: (row: R) => ReactNode;
    width?: number;
    /** Opens this modal instead of the read-only detail (an approval queue's tap opens the review, which can act). */
    component?: ComponentType<ScreenModalProps<R>>;
  };
  /**
   * Other queries a save or delete on this screen outdates (e.g. the forms' preload of
   * vehicle models), refetched at once with the list.
   */
  invalidates?: ReadonlyArray<readonly unknown[]>;
  /** ms; approval queues use 60_000. Paused while any modal or sheet of the screen is open. */
  autoRefresh?: number;
  /** Extra row class, e.g. red rows of flagged vehicles. */
  rowClassName?: (row: R) => string | undefined;
  /** Wide tables: a leading 序号 column that counts on across pages (desktop table only). */
  rowNumber?: boolean;
}

/** A field as a screen declares it: without a label it takes its entity's catalogue label (ScreenDeclaration.labels). */
export type DeclaredField<R extends Row = Row> = Omit<FieldDef<R>, 'label'> & { label?: string };

export type ScreenDeclaration<R extends Row = Row> = Omit<ScreenDef<R>, 'fields'> & {
  /** The entity's label catalogue from domain/ (the one its schemas' messages use), looked up by field name, then by dataIndex. */
  labels?: FieldLabels;
  fields: DeclaredField<R>[];
};

/** Declares a screen: keeps the row type and names each field from the entity's label catalogue unless it says otherwise. */
export function defineScreen<R extends Row>(declaration: ScreenDeclaration<R>): ScreenDef<R> {
  const { labels, fields, ...def } = declaration;
  return {
    ...def,
    fields: fields.map((f) => {
      const label = f.label ?? labels?.[f.name] ?? (f.dataIndex ? labels?.[f.dataIndex] : undefined);
      if (!label) throw new Error(`screen ${def.key}: field ${f.name} has no label, and the screen's labels have none for it`);
      return { ...f, label };
    }),
  };
}
