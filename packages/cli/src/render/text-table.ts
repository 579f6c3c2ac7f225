/**
 * Plain-text tables for human output (`acdp runs`, `acdp run`). Columns are left-aligned and separated by two
 * spaces; widths count UTF-16 code units, which is exact for the ASCII identifiers these tables show.
 */

/** One column: its header and how to read a row's cell. */
export interface TableColumn<Row> {
  header: string
  cell: (row: Row) => string
  /** Right-align (numbers). */
  alignRight?: boolean
}

/** Renders rows as an aligned table with a header line; an empty row list renders the header only. */
export function renderTable<Row>(columns: ReadonlyArray<TableColumn<Row>>, rows: readonly Row[]): string {
  const cells = rows.map((row) => columns.map((column) => sanitizeTerminalText(column.cell(row))))
  const widths = columns.map((column, index) =>
    Math.max(column.header.length, ...cells.map((line) => (line[index] ?? '').length)),
  )
  const formatLine = (line: readonly string[]) =>
    line
      .map((text, index) => {
        const width = widths[index] ?? 0
        return columns[index]?.alignRight ? text.padStart(width) : text.padEnd(width)
      })
      .join('  ')
      .trimEnd()
  return [formatLine(columns.map((column) => column.header)), ...cells.map((line) => formatLine(line))].join('\n')
}

/**
 * Replaces control characters (ANSI escapes, newlines) with `?`. Server-supplied strings are
 * attacker-controlled and end up on a terminal; this keeps a hostile field from rewriting the screen or
 * breaking a table.
 */
export function sanitizeTerminalText(text: string): string {
  // control characters in this pattern are deliberate: stripping control characters is the point
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?')
}

/** Shortens a long identifier to `head…tail` for display; short values are returned unchanged. */
export function abbreviate(text: string, head: number, tail: number): string {
  if (text.length <= head + tail + 1) return text
  return `${text.slice(0, head)}…${tail === 0 ? '' : text.slice(-tail)}`
}
