/**
 * The accessible name of a button that reads like a field (a picker's trigger): the field's label, then what the
 * button shows (the choice or the placeholder). A name without the shown text is one a voice user cannot say
 * (WCAG 2.5.3); without the label, a screen reader hears a value and not which field it belongs to.
 */
export const triggerName = (field: string | undefined, shown: string): string | undefined => (field ? `${field} ${shown}` : undefined);
