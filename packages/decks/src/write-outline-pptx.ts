import { buildZip, writeFileAtomic, ZipArchive } from '@xsb/core';
import type PptxGenJS from 'pptxgenjs';
import { estimateTextHeight, fitFontSize, type TextArea } from './fit-font-size';
import { type DeckOutline, deckOutlineSchema, type OutlineSlide } from './schemas/deck-outline';

/**
 * The baseline theme: one font, one accent. Sizes are the preferred ones; long text steps down
 * through the `*Sizes` lists (never below 12 pt, the rubric's readability floor) to stay in its box.
 */
const BASELINE_THEME = {
  font: 'Arial',
  accent: '1F4E79',
  text: '222222',
  titleSize: 30,
  coverTitleSize: 38,
  bodySize: 20,
  tableSize: 14,
} as const;

const TITLE_SIZES = [BASELINE_THEME.titleSize, 26, 22];
const COVER_TITLE_SIZES = [BASELINE_THEME.coverTitleSize, 32, 28];
const SUBTITLE_SIZES = [BASELINE_THEME.bodySize, 18, 16, 14];
/** The layout rule every baseline deck keeps: at most six readable items on a slide. */
export const MAX_ITEMS_PER_SLIDE = 6;
const BODY_SIZES = [BASELINE_THEME.bodySize, 18, 16, 14];
/** Bullets that share a slide with a table or chart. */
const LEAD_SIZES = [16, 14];
const TABLE_SIZES = [BASELINE_THEME.tableSize, 12];

/** Inches on the 10 × 5.625 in (16:9) slide. */
const TITLE_BOX = { x: 0.5, y: 0.25, w: 9, h: 0.85 };
const BODY_BOX = { x: 0.6, y: 1.25, w: 8.8, h: 4.05 };
const COVER_TITLE_BOX = { x: 0.7, y: 1.4, w: 8.6, h: 1.6 };
const COVER_SUBTITLE_BOX = { x: 0.7, y: 3.1, w: 8.6, h: 2.2 };
const CONTENT_BOTTOM = BODY_BOX.y + BODY_BOX.h;
const LEAD_MAX_HEIGHT = 1.5;
const GAP = 0.12;

/** pptxgenjs defaults: 0.1 in left/right text inset, 0.05 in top/bottom, 27 pt bullet indent, table cell margins. */
const INSET_X_PT = 7.2;
const INSET_Y_PT = 3.6;
const BULLET_INDENT_PT = 27;
const CELL_MARGIN_X_PT = 14.4;
const CELL_MARGIN_Y_PT = 7.2;
const PARAGRAPH_GAP_PT = 6;

function textArea(box: { w: number; h: number }, indentPt = 0): TextArea {
  return { widthPt: box.w * 72 - 2 * INSET_X_PT - indentPt, heightPt: box.h * 72 - 2 * INSET_Y_PT };
}

function tableHeight(rows: string[][], sizePt: number, widthIn: number): number {
  const cellWidthPt = (widthIn * 72) / Math.max(1, rows[0]?.length ?? 1) - CELL_MARGIN_X_PT;
  const heightPt = rows.reduce(
    (sum, row) =>
      sum +
      Math.max(...row.map((cell) => estimateTextHeight([cell], sizePt, cellWidthPt))) +
      CELL_MARGIN_Y_PT,
    0,
  );
  return heightPt / 72;
}

const MASTER = 'XSB_BASELINE';
const CHART_COLORS = [
  '1F4E79',
  '2E86AB',
  'F18F01',
  'C73E1D',
  '3B8B5A',
  '7D5BA6',
  'A23B72',
  '5A6470',
  'E4B363',
  '4FB0C6',
  '8C4A2F',
  '9BC53D',
];
const COVER = 'XSB_COVER';
const VISUAL = 'XSB_VISUAL';
const FIXED_DATE = '2000-01-01T00:00:00Z';

type PlaceholderOptions = PptxGenJS.TextPropsOptions & { name: string; type: 'title' | 'body' };

function placeholder(box: Box, options: PlaceholderOptions) {
  return { placeholder: { options: { ...options, ...box, fontFace: BASELINE_THEME.font }, text: '' } };
}

function defineMasters(pptx: PptxGenJS): void {
  const theme = BASELINE_THEME;
  const accentBar = { rect: { x: 0, y: 0, w: 10, h: 0.12, fill: { color: theme.accent } } };
  const title = placeholder(TITLE_BOX, {
    name: 'title',
    type: 'title',
    fontSize: theme.titleSize,
    bold: true,
    color: theme.accent,
    align: 'left',
    valign: 'middle',
  });
  const body = placeholder(BODY_BOX, {
    name: 'body',
    type: 'body',
    fontSize: theme.bodySize,
    color: theme.text,
    valign: 'top',
  });
  const white = { color: 'FFFFFF' };
  pptx.defineSlideMaster({ title: MASTER, background: white, objects: [accentBar, title, body] });
  // Table and chart slides get no body placeholder: an empty one would sit under the visual.
  pptx.defineSlideMaster({ title: VISUAL, background: white, objects: [accentBar, title] });
  const coverTitle = placeholder(COVER_TITLE_BOX, {
    name: 'title',
    type: 'title',
    fontSize: theme.coverTitleSize,
    bold: true,
    color: 'FFFFFF',
    align: 'left',
    valign: 'bottom',
  });
  const coverSubtitle = placeholder(COVER_SUBTITLE_BOX, {
    name: 'subtitle',
    type: 'body',
    fontSize: theme.bodySize,
    color: 'DDE6F0',
    align: 'left',
    valign: 'top',
  });
  pptx.defineSlideMaster({
    title: COVER,
    background: { color: theme.accent },
    objects: [coverTitle, coverSubtitle],
  });
}

const CHART_PART = /(charts\/(?:_rels\/)?chart)(\d+)(\.xml)/g;
const WORKBOOK_PART = /(Microsoft_Excel_Worksheet)(\d+)(\.xlsx)/g;

function numberingMap(names: string[], pattern: RegExp): Map<string, number> {
  const numbers = new Set<number>();
  for (const name of names) for (const match of name.matchAll(pattern)) numbers.add(Number(match[2]));
  return new Map([...numbers].sort((a, b) => a - b).map((number, index) => [String(number), index + 1]));
}

function renumber(text: string, pattern: RegExp, map: Map<string, number>): string {
  return text.replace(pattern, (whole, prefix: string, number: string, suffix: string) =>
    map.has(number) ? `${prefix}${map.get(number)}${suffix}` : whole,
  );
}

/**
 * pptxgenjs stamps the current time into docProps and every ZIP entry (also inside the embedded chart
 * workbooks) and numbers chart parts with a process-wide counter. Rewriting the package with fixed
 * dates and charts renumbered from 1 makes the same outline give byte-identical decks.
 */
function normalizePackage(bytes: Buffer, file: string): Buffer {
  const zip = ZipArchive.open(bytes, file);
  const names = zip.names();
  const charts = numberingMap(names, CHART_PART);
  const workbooks = numberingMap(names, WORKBOOK_PART);
  const entries = names.map((name) => {
    let data = zip.read(name) as Buffer;
    if (name.endsWith('.xlsx')) data = normalizePackage(data, `${file}:${name}`);
    if (/\.(xml|rels)$/.test(name)) {
      let text = data.toString('utf8');
      if (name === 'docProps/core.xml') {
        text = text
          .replace(/(<dcterms:created[^>]*>)[^<]*(<\/dcterms:created>)/, `$1${FIXED_DATE}$2`)
          .replace(/(<dcterms:modified[^>]*>)[^<]*(<\/dcterms:modified>)/, `$1${FIXED_DATE}$2`);
      }
      text = renumber(renumber(text, CHART_PART, charts), WORKBOOK_PART, workbooks);
      data = Buffer.from(text, 'utf8');
    }
    return { name: renumber(renumber(name, CHART_PART, charts), WORKBOOK_PART, workbooks), data };
  });
  return buildZip(entries);
}

type OutlineTable = NonNullable<OutlineSlide['table']>;
type OutlineChart = NonNullable<OutlineSlide['chart']>;

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

function addTable(slide: PptxGenJS.Slide, table: OutlineTable, box: Box): void {
  const theme = BASELINE_THEME;
  const { columns } = table;
  const rows = table.rows.map((row) => columns.map((_, index) => row[index] ?? ''));
  const fontSize =
    TABLE_SIZES.find((size) => tableHeight([columns, ...rows], size, box.w) <= box.h) ??
    (TABLE_SIZES[TABLE_SIZES.length - 1] as number);
  const header = columns.map((text) => ({
    text,
    options: { bold: true, color: 'FFFFFF', fill: { color: theme.accent } },
  }));
  slide.addTable([header, ...rows.map((row) => row.map((text) => ({ text })))], {
    x: box.x,
    y: box.y,
    w: box.w,
    fontFace: theme.font,
    fontSize,
    color: theme.text,
    border: { type: 'solid', pt: 0.75, color: 'B7C3D0' },
    autoPage: false,
  });
}

/** A native chart filling `box` (a small side margin keeps axis labels off the slide edge). */
function addChart(pptx: PptxGenJS, slide: PptxGenJS.Slide, chart: OutlineChart, box: Box): void {
  const theme = BASELINE_THEME;
  const type =
    chart.type === 'line'
      ? pptx.ChartType.line
      : chart.type === 'pie'
        ? pptx.ChartType.pie
        : pptx.ChartType.bar;
  const values = chart.series.flatMap((series) => series.values);
  slide.addChart(
    type,
    chart.series.map((series) => ({ name: series.name, labels: chart.categories, values: series.values })),
    {
      x: box.x + 0.2,
      y: box.y,
      w: box.w - 0.4,
      h: box.h,
      showTitle: Boolean(chart.title),
      title: chart.title,
      titleFontFace: theme.font,
      titleFontSize: 16,
      showLegend: chart.series.length > 1 || chart.type === 'pie',
      legendPos: 'b',
      legendFontSize: 12,
      catAxisLabelFontSize: 12,
      valAxisLabelFontSize: 12,
      // Bars of positive figures start at zero: an auto-scaled axis exaggerates small differences.
      ...(chart.type === 'bar' && Math.min(...values) >= 0 ? { valAxisMinVal: 0 } : {}),
      // One colour per series (several colours on one series read as a legend that is not there);
      // a pie needs one per slice. pptxgenjs picks random colours past the palette: 12 covers the
      // outline's maximum of categories.
      chartColors: chart.type === 'pie' ? CHART_COLORS : CHART_COLORS.slice(0, chart.series.length),
    },
  );
}

/** The cover's agenda when the outline has no subtitle: the distinct slide titles, at most six. */
export function agendaOf(outline: DeckOutline): string[] {
  const seen = new Set<string>([outline.title.trim().toLowerCase()]);
  const titles: string[] = [];
  for (const slide of outline.slides) {
    const key = slide.title.trim().toLowerCase();
    if (key === '' || seen.has(key)) continue;
    seen.add(key);
    titles.push(slide.title.trim());
  }
  return titles.slice(0, MAX_ITEMS_PER_SLIDE);
}

/** pptxgenjs lets a placeholder's own options win over the text options: sizes go on the runs. */
function addTitle(
  slide: PptxGenJS.Slide,
  text: string,
  box: Box,
  sizes: number[],
  options: PptxGenJS.TextPropsOptions,
): void {
  const fontSize = fitFontSize([text], textArea(box), sizes);
  slide.addText([{ text, options: { fontSize } }], { placeholder: 'title', ...options });
}

function addCover(pptx: PptxGenJS, outline: DeckOutline): void {
  const cover = pptx.addSlide({ masterName: COVER });
  addTitle(cover, outline.title, COVER_TITLE_BOX, COVER_TITLE_SIZES, {});
  // A cover holding only its title is an empty slide; without a subtitle it lists what the deck covers.
  const coverLines = outline.subtitle.trim() ? [outline.subtitle.trim()] : agendaOf(outline);
  cover.addText(
    coverLines.map((text) => ({
      text,
      options: {
        breakLine: true,
        fontSize: fitFontSize(coverLines, textArea(COVER_SUBTITLE_BOX), SUBTITLE_SIZES),
      },
    })),
    { placeholder: 'subtitle', fit: 'shrink' },
  );
}

/** Above a visual, the bullets are a lead-in only as tall as their text. Returns where the visual starts. */
function addBullets(slide: PptxGenJS.Slide, planned: OutlineSlide, hasVisual: boolean): number {
  if (planned.bullets.length === 0) return BODY_BOX.y;
  const bullets = (fontSize: number) =>
    planned.bullets.map((text) => ({ text, options: { bullet: true, breakLine: true, fontSize } }));
  if (!hasVisual) {
    const area = textArea(BODY_BOX, BULLET_INDENT_PT);
    const fontSize = fitFontSize(planned.bullets, area, BODY_SIZES, PARAGRAPH_GAP_PT);
    slide.addText(bullets(fontSize), {
      placeholder: 'body',
      paraSpaceAfter: PARAGRAPH_GAP_PT,
      // Past the estimate's smallest size, renderers that honour autofit shrink the text to fit.
      fit: 'shrink',
    });
    return BODY_BOX.y;
  }
  const leadBox = { ...BODY_BOX, h: LEAD_MAX_HEIGHT };
  const area = textArea(leadBox, BULLET_INDENT_PT);
  const fontSize = fitFontSize(planned.bullets, area, LEAD_SIZES);
  const neededPt = estimateTextHeight(planned.bullets, fontSize, area.widthPt) + 2 * INSET_Y_PT;
  const h = Math.min(LEAD_MAX_HEIGHT, Math.ceil((neededPt / 72) * 100) / 100);
  slide.addText(bullets(fontSize), {
    ...leadBox,
    h,
    fontFace: BASELINE_THEME.font,
    fontSize,
    color: BASELINE_THEME.text,
    valign: 'top',
    fit: 'shrink',
  });
  return BODY_BOX.y + h + GAP;
}

function addContentSlide(pptx: PptxGenJS, planned: OutlineSlide): void {
  const hasVisual = Boolean(planned.table || planned.chart);
  const slide = pptx.addSlide({ masterName: hasVisual ? VISUAL : MASTER });
  addTitle(slide, planned.title, TITLE_BOX, TITLE_SIZES, { fit: 'shrink' });
  const visualTop = addBullets(slide, planned, hasVisual);
  // A slide with both a table and a chart puts them side by side, so they never overlap.
  const both = Boolean(planned.table && planned.chart);
  const visualWidth = both ? (BODY_BOX.w - GAP * 2) / 2 : BODY_BOX.w;
  const visual = { x: BODY_BOX.x, y: visualTop, w: visualWidth, h: CONTENT_BOTTOM - visualTop };
  if (planned.table) addTable(slide, planned.table, visual);
  if (planned.chart) {
    addChart(pptx, slide, planned.chart, both ? { ...visual, x: visual.x + visualWidth + GAP * 2 } : visual);
  }
  if (planned.notes) slide.addNotes(planned.notes);
}

/** Writes an outline as a real PPTX (cover, then one slide per outline slide); returns the slide count. */
export async function writeOutlinePptx(outline: DeckOutline, file: string): Promise<number> {
  const valid = deckOutlineSchema.parse(outline);
  // Imported here, not at the top: pptxgenjs and its jszip are the heaviest part of importing the package.
  const { default: Pptx } = await import('pptxgenjs');
  const pptx = new Pptx();
  pptx.layout = 'LAYOUT_16x9';
  pptx.author = 'xsb-baseline';
  pptx.company = 'xsb';
  pptx.title = valid.title;
  pptx.theme = { headFontFace: BASELINE_THEME.font, bodyFontFace: BASELINE_THEME.font };
  defineMasters(pptx);
  addCover(pptx, valid);
  for (const planned of valid.slides) addContentSlide(pptx, planned);
  const raw = (await pptx.write({ outputType: 'nodebuffer' })) as Buffer;
  await writeFileAtomic(file, normalizePackage(Buffer.from(raw), file));
  return valid.slides.length + 1;
}
