import type { DesignRecord, ReferenceRecord } from '@xsb/design';
import { escapeHtml } from '../html/escape-html';
import { badge, type Cell, countCell, renderTable, text, valueCell } from '../html/html-table';

/** One deck of the run with the design files of its evaluation folders (equal for every audience). */
export interface DeckDesignRow {
  deckId: string;
  system: string;
  caseLabel: string;
  design: DesignRecord;
  reference: ReferenceRecord | null;
}

const lowestContrast = (design: DesignRecord) => {
  const values = design.slides.flatMap((slide) => (slide.contrast_min === null ? [] : [slide.contrast_min]));
  return values.length > 0 ? Math.min(...values) : null;
};

const deckLink = (row: DeckDesignRow): Cell => ({
  html: `<a href="#${escapeHtml(row.deckId)}">${escapeHtml(`${row.system} · ${row.caseLabel}`)}</a>`,
  sort: `${row.system} ${row.caseLabel}`,
});

/** The slides whose text reads under 3:1, as the report names them. */
export function lowContrastText(design: DesignRecord): string {
  const slides = design.deck.low_contrast_slides;
  return slides.length === 0 ? 'none' : `slide${slides.length === 1 ? '' : 's'} ${slides.join(', ')}`;
}

/** Per deck: the means of the design metrics and which slides have text under 3:1. */
export function designTable(id: string, rows: readonly DeckDesignRow[]): string {
  return renderTable({
    id,
    rows,
    columns: [
      { label: 'deck', cell: deckLink },
      { label: 'slides', cell: (row) => countCell(row.design.deck.slide_count) },
      { label: 'colorfulness', cell: (row) => valueCell(row.design.deck.colorfulness, 1) },
      { label: 'lowest contrast', cell: (row) => valueCell(lowestContrast(row.design), 2) },
      { label: 'median contrast', cell: (row) => valueCell(row.design.deck.contrast_median, 2) },
      {
        label: 'text under 3:1',
        cell: (row) => ({
          html:
            row.design.deck.low_contrast_slides.length > 0
              ? badge(lowContrastText(row.design), 'bad')
              : 'none',
          sort: row.design.deck.low_contrast_slides.length,
        }),
      },
      { label: 'harmony (°)', cell: (row) => valueCell(row.design.deck.harmony, 1) },
      { label: 'complexity (bits)', cell: (row) => valueCell(row.design.deck.complexity, 2) },
      { label: 'whitespace', cell: (row) => valueCell(row.design.deck.whitespace, 2) },
      { label: 'balance', cell: (row) => valueCell(row.design.deck.balance, 2) },
      { label: 'colorfulness spread', cell: (row) => valueCell(row.design.deck.consistency.colorfulness, 1) },
    ],
  });
}

/** Per deck with a reference deck: how close its text comes to it. */
export function referenceTable(id: string, rows: readonly DeckDesignRow[]): string {
  const withReference = rows.filter((row) => row.reference !== null);
  return renderTable({
    id,
    rows: withReference,
    columns: [
      { label: 'deck', cell: deckLink },
      {
        label: 'slides / reference',
        cell: (row) => text(`${row.reference!.slide_count} / ${row.reference!.reference_slide_count}`),
      },
      { label: 'matched slides', cell: (row) => countCell(row.reference!.matches.length) },
      { label: 'ROUGE-L', cell: (row) => valueCell(row.reference!.rouge_l) },
      { label: 'order tau', cell: (row) => valueCell(row.reference!.order_tau) },
      { label: 'key-term recall', cell: (row) => valueCell(row.reference!.key_term_recall) },
    ],
  });
}

/** One deck's slides, a row each: what the drill-down shows under its slide strip. */
export function slideDesignTable(id: string, design: DesignRecord): string {
  return renderTable({
    id,
    rows: design.slides,
    rowData: (slide) => ({ slide: String(slide.index) }),
    columns: [
      { label: 'slide', cell: (slide) => countCell(slide.index) },
      { label: 'colorfulness', cell: (slide) => valueCell(slide.colorfulness, 1) },
      { label: 'lowest contrast', cell: (slide) => valueCell(slide.contrast_min, 2) },
      {
        label: 'text under 4.5:1 / 3:1',
        cell: (slide) => ({
          html: `${slide.contrast_below_4_5} / ${slide.contrast_below_3 > 0 ? badge(String(slide.contrast_below_3), 'bad') : '0'}`,
          sort: slide.contrast_below_3,
          className: 'num',
        }),
      },
      { label: 'harmony (°)', cell: (slide) => valueCell(slide.harmony, 1) },
      { label: 'complexity', cell: (slide) => valueCell(slide.complexity, 2) },
      { label: 'whitespace', cell: (slide) => valueCell(slide.whitespace, 2) },
      { label: 'balance', cell: (slide) => valueCell(slide.balance, 2) },
    ],
  });
}

export const DESIGN_NOTE =
  'Computed from the rendered slides with no judge (see @xsb/design): one value per deck, the mean over its slides (n = its slides), so no interval. Text under 3:1 fails WCAG even for large text.';

/** The slides to flag in a deck's strip: slide index → its caption note. */
export function slideContrastFlags(design: DesignRecord): Map<number, string> {
  return new Map(
    design.slides
      .filter((slide) => slide.contrast_below_3 > 0)
      .map((slide) => [slide.index, `text under 3:1 (${slide.contrast_min?.toFixed(2)}:1)`]),
  );
}
