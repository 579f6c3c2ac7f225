/** Printable ids (run ids, scenario ids): no control characters. */
export const PRINTABLE_PATTERN = '^[\\x20-\\x7e\\u00a0-\\uffff]+$'
