import { type DeckOutline, deckOutlineSchema, writeFileAtomic } from '@xsb/core';
import PptxGenJS from 'pptxgenjs';
import { buildZip } from './build-zip';
import { ZipArchive } from './zip-archive';

/** The baseline theme: one font, one accent, sizes well above the 18 pt readability floor for body text. */
export const BASELINE_THEME = {
  font: 'Arial',
  accent: '1F4E79',
  text: '222222',
  muted: '5A6470',
  titleSize: 30,
  coverTitleSize: 38,
  bodySize: 20,
  tableSize: 14,
} as const;

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

function defineMasters(pptx: PptxGenJS): void {
  const theme = BASELINE_THEME;
  const accentBar = { rect: { x: 0, y: 0, w: 10, h: 0.12, fill: { color: theme.accent } } };
  const title = {
    placeholder: {
      options: {
        name: 'title',
        type: 'title' as const,
        x: 0.5,
        y: 0.3,
        w: 9,
        h: 0.8,
        fontFace: theme.font,
        fontSize: theme.titleSize,
        bold: true,
        color: theme.accent,
        valign: 'middle' as const,
      },
      text: '',
    },
  };
  const body = {
    placeholder: {
      options: {
        name: 'body',
        type: 'body' as const,
        x: 0.6,
        y: 1.25,
        w: 8.8,
        h: 3.95,
        fontFace: theme.font,
        fontSize: theme.bodySize,
        color: theme.text,
        valign: 'top' as const,
      },
      text: '',
    },
  };
  pptx.defineSlideMaster({
    title: MASTER,
    background: { color: 'FFFFFF' },
    objects: [accentBar, title, body],
  });
  // Table and chart slides get no body placeholder: an empty one would sit under the visual.
  pptx.defineSlideMaster({ title: VISUAL, background: { color: 'FFFFFF' }, objects: [accentBar, title] });
  pptx.defineSlideMaster({
    title: COVER,
    background: { color: theme.accent },
    objects: [
      {
        placeholder: {
          options: {
            name: 'title',
            type: 'title',
            x: 0.7,
            y: 1.6,
            w: 8.6,
            h: 1.4,
            fontFace: theme.font,
            fontSize: theme.coverTitleSize,
            bold: true,
            color: 'FFFFFF',
            valign: 'bottom',
          },
          text: '',
        },
      },
      {
        placeholder: {
          options: {
            name: 'subtitle',
            type: 'body',
            x: 0.7,
            y: 3.1,
            w: 8.6,
            h: 0.8,
            fontFace: theme.font,
            fontSize: theme.bodySize,
            color: 'DDE6F0',
            valign: 'top',
          },
          text: '',
        },
      },
    ],
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

/**
 * Writes an outline as a real PPTX: a cover slide (title + subtitle placeholders), then one slide per
 * outline slide with a title placeholder and bullets, a native table, or a native chart. Returns the
 * number of slides written (cover included).
 */
export async function writeOutlinePptx(outline: DeckOutline, file: string): Promise<number> {
  const valid = deckOutlineSchema.parse(outline);
  const theme = BASELINE_THEME;
  const pptx = new PptxGenJS();
  pptx.layout = 'LAYOUT_16x9';
  pptx.author = 'xsb-baseline';
  pptx.company = 'xsb';
  pptx.title = valid.title;
  pptx.theme = { headFontFace: theme.font, bodyFontFace: theme.font };
  defineMasters(pptx);

  const cover = pptx.addSlide({ masterName: COVER });
  cover.addText(valid.title, { placeholder: 'title', fontSize: theme.coverTitleSize });
  if (valid.subtitle) cover.addText(valid.subtitle, { placeholder: 'subtitle', fontSize: theme.bodySize });

  for (const planned of valid.slides) {
    const hasVisual = Boolean(planned.table || planned.chart);
    const slide = pptx.addSlide({ masterName: hasVisual ? VISUAL : MASTER });
    slide.addText(planned.title, { placeholder: 'title', fontSize: theme.titleSize });
    if (planned.bullets.length > 0) {
      slide.addText(
        planned.bullets.map((text) => ({ text, options: { bullet: true, breakLine: true } })),
        hasVisual
          ? {
              x: 0.6,
              y: 1.25,
              w: 8.8,
              h: 1.1,
              fontFace: theme.font,
              fontSize: 16,
              color: theme.text,
              valign: 'top',
            }
          : { placeholder: 'body', fontSize: theme.bodySize, paraSpaceAfter: 6 },
      );
    }
    const visualTop = planned.bullets.length > 0 && hasVisual ? 2.45 : 1.3;
    if (planned.table) {
      const header = planned.table.columns.map((text) => ({
        text,
        options: { bold: true, color: 'FFFFFF', fill: { color: theme.accent } },
      }));
      const body = planned.table.rows.map((row) =>
        planned.table!.columns.map((_, index) => ({ text: row[index] ?? '' })),
      );
      slide.addTable([header, ...body], {
        x: 0.6,
        y: visualTop,
        w: 8.8,
        fontFace: theme.font,
        fontSize: theme.tableSize,
        color: theme.text,
        border: { type: 'solid', pt: 0.75, color: 'B7C3D0' },
        autoPage: false,
      });
    }
    if (planned.chart) {
      const chart = planned.chart;
      const type =
        chart.type === 'line'
          ? pptx.ChartType.line
          : chart.type === 'pie'
            ? pptx.ChartType.pie
            : pptx.ChartType.bar;
      slide.addChart(
        type,
        chart.series.map((series) => ({
          name: series.name,
          labels: chart.categories,
          values: series.values,
        })),
        {
          x: 0.8,
          y: visualTop,
          w: 8.4,
          h: 5.3 - visualTop,
          showTitle: Boolean(chart.title),
          title: chart.title,
          titleFontFace: theme.font,
          titleFontSize: 16,
          showLegend: chart.series.length > 1 || chart.type === 'pie',
          legendPos: 'b',
          legendFontSize: 12,
          catAxisLabelFontSize: 12,
          valAxisLabelFontSize: 12,
          // pptxgenjs picks a random colour when categories outnumber the palette: keep 12 (the outline maximum).
          chartColors: CHART_COLORS,
        },
      );
    }
    if (planned.notes) slide.addNotes(planned.notes);
  }
  const raw = (await pptx.write({ outputType: 'nodebuffer' })) as Buffer;
  await writeFileAtomic(file, normalizePackage(Buffer.from(raw), file));
  return valid.slides.length + 1;
}
