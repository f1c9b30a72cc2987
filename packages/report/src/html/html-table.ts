import { compareCodePoints } from '@xsb/core';
import { escapeHtml } from './escape-html';
import { formatValue } from './format-number';

/** `html` is already escaped; numbers in `sort` sort as numbers. */
export interface Cell {
  html: string;
  sort?: string | number | null;
  className?: string;
}

export interface Column<Row> {
  label: string;
  cell: (row: Row) => Cell;
}

export interface TableFilter<Row> {
  key: string;
  label: string;
  value: (row: Row) => string;
}

export interface TableOptions<Row> {
  id: string;
  columns: Array<Column<Row>>;
  rows: readonly Row[];
  /** Extra `data-*` attributes per row (e.g. `slides`, `deck` for click-to-highlight). */
  rowData?: (row: Row) => Record<string, string>;
  filters?: Array<TableFilter<Row>>;
  search?: boolean;
  empty?: string;
}

export const text = (value: unknown, sort?: string | number | null): Cell => ({
  html: escapeHtml(value),
  ...(sort !== undefined ? { sort } : {}),
});

/** Missing values sort last, as text. */
export const numeric = (shown: string, value: number | null | undefined): Cell => ({
  html: escapeHtml(shown),
  sort: value === null || value === undefined || !Number.isFinite(value) ? null : value,
  className: 'num',
});

export const valueCell = (value: number | null | undefined, digits = 3): Cell =>
  numeric(formatValue(value, digits), value);

export const countCell = (value: number): Cell => numeric(String(value), value);

const attributes = (data: Record<string, string>): string =>
  Object.entries(data)
    .map(([key, value]) => ` data-${key}="${escapeHtml(value)}"`)
    .join('');

/** A sortable, filterable table that works offline through the report's inline script. */
export function renderTable<Row>(options: TableOptions<Row>): string {
  if (options.rows.length === 0) return `<p class="note">${escapeHtml(options.empty ?? 'No rows.')}</p>`;
  const filters = options.filters ?? [];
  let bar = '';
  if (filters.length > 0 || options.search) {
    const selects = filters.map((filter) => {
      const values = [...new Set(options.rows.map(filter.value))].sort(compareCodePoints);
      const choices = values.map(
        (value) => `<option value="${escapeHtml(value)}">${escapeHtml(value)}</option>`,
      );
      return `<label>${escapeHtml(filter.label)} <select data-filter="${escapeHtml(filter.key)}"><option value="">all</option>${choices.join('')}</select></label>`;
    });
    const search = options.search ? '<input type="search" data-filter-text placeholder="filter text…">' : '';
    bar = `<div class="filters" data-table="${escapeHtml(options.id)}">${selects.join('')}${search}<span class="filter-count"></span></div>`;
  }
  const head = options.columns.map((column) => `<th scope="col">${escapeHtml(column.label)}</th>`).join('');
  const body = options.rows
    .map((row) => {
      const data: Record<string, string> = { ...(options.rowData?.(row) ?? {}) };
      for (const filter of filters) data[`f-${filter.key}`] = filter.value(row);
      const cells = options.columns.map((column) => {
        const cell = column.cell(row);
        const sort =
          cell.sort === undefined || cell.sort === null ? '' : ` data-value="${escapeHtml(cell.sort)}"`;
        const className = cell.className ? ` class="${escapeHtml(cell.className)}"` : '';
        return `<td${className}${sort}>${cell.html}</td>`;
      });
      return `<tr${attributes(data)}>${cells.join('')}</tr>`;
    })
    .join('\n');
  return `${bar}<table id="${escapeHtml(options.id)}" class="sortable"><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

export function badge(label: string, tone: 'good' | 'bad' | 'mid' | 'warn'): string {
  return `<span class="badge b-${tone}">${escapeHtml(label)}</span>`;
}
