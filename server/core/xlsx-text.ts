import { createRequire } from 'node:module';
import type ExcelJS from 'exceljs';

/**
 * Text that a spreadsheet would take for a formula once the cell is edited
 * (OWASP "CSV injection": = + - @, a tab or a carriage return first).
 */
const FORMULA_LIKE = /^[=+\-@\t\r]/;

interface XmlStream {
  openNode(name: string, attributes?: Record<string, unknown>): void;
}
interface StyleModel {
  quotePrefix?: boolean;
}

/*
 * ExcelJS 4.4 has no quotePrefix: it drops unknown style keys when it turns a
 * cell's style into an <xf>. These two wraps carry `style.quotePrefix` through
 * to the xf's quotePrefix="1" attribute (ECMA-376 18.8.45), which is what Excel
 * stores when a user types a leading apostrophe: the cell shows the text as
 * typed, and editing it never turns it into a formula. A literal apostrophe in
 * the value would show, and would come back on import through the templates'
 * drop-downs. The wraps are installed once, on the classes ExcelJS itself uses.
 */
const requireExcelJs = createRequire(import.meta.url);
const StyleXform = requireExcelJs('exceljs/lib/xlsx/xform/style/style-xform.js') as { prototype: { render(this: unknown, xml: XmlStream, model: StyleModel): void } };
const StylesXform = requireExcelJs('exceljs/lib/xlsx/xform/style/styles-xform.js') as {
  prototype: { addStyleModel(this: QuoteState, model: StyleModel | undefined, cellType?: unknown): number; _addStyle(this: QuoteState, style: StyleModel): number };
};
interface QuoteState {
  quoting?: boolean;
}
const INSTALLED = Symbol.for('park.xlsx.quotePrefix');
if (!(INSTALLED in StylesXform.prototype)) {
  Object.defineProperty(StylesXform.prototype, INSTALLED, { value: true });
  const addStyleModel = StylesXform.prototype.addStyleModel;
  StylesXform.prototype.addStyleModel = function (model, cellType) {
    this.quoting = !!model?.quotePrefix;
    try {
      return addStyleModel.call(this, model, cellType);
    } finally {
      this.quoting = false;
    }
  };
  // The xf's XML is its identity (styles are shared by their XML), so the attribute keeps quoted and plain styles apart.
  const addStyle = StylesXform.prototype._addStyle;
  StylesXform.prototype._addStyle = function (style) {
    return addStyle.call(this, this.quoting ? { ...style, quotePrefix: true } : style);
  };
  const render = StyleXform.prototype.render;
  StyleXform.prototype.render = function (xml, model) {
    if (!model.quotePrefix) return render.call(this, xml, model);
    // The attribute must be on the opening tag, before render writes the xf's children.
    const own = Object.prototype.hasOwnProperty.call(xml, 'openNode');
    const openNode = xml.openNode;
    const restore = () => {
      if (own) xml.openNode = openNode;
      else delete (xml as Partial<XmlStream>).openNode;
    };
    xml.openNode = (name, attributes) => {
      restore();
      openNode.call(xml, name, { ...attributes, quotePrefix: 1 });
    };
    try {
      render.call(this, xml, model);
    } finally {
      restore();
    }
  };
}

/**
 * Marks a cell holding formula-like text with the quote prefix, so the
 * spreadsheet shows the text as typed. Every cell written from text goes
 * through here (exports and import templates); the value itself is untouched.
 */
export function guardSpreadsheetText(cell: ExcelJS.Cell): void {
  if (typeof cell.value === 'string' && FORMULA_LIKE.test(cell.value)) cell.style = { ...cell.style, quotePrefix: true } as Partial<ExcelJS.Style>;
}
