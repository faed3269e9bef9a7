export { ListScreen } from './list-screen';
export { ScreenModal, type ScreenModalProps as ScreenModalFrameProps } from './screen-modal';
export { defineScreen } from './types';
export { DetailLines } from './detail-view';
export type { BatchAction, Can, DeclaredField, FieldDef, FieldKind, FormDef, FormMode, Row, RowAction, ScreenDeclaration, ScreenDef, ScreenModalProps, ToolbarAction, Values } from './types';
export { MESSAGES, failureText, fieldErrorMap } from './conventions';
export { FormItem, type FormItemProps } from './form-item';
export { DraftFooter, DRAFT_BUTTONS, DRAFT_KEPT, saveThenSubmit, type SaveIntent } from './draft-submit';
