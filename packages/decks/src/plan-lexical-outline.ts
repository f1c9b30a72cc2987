import { InputError, type Probe } from '@xsb/core';
import {
  LEXICAL_DEFINITION,
  LEXICAL_GLOSSARY,
  LEXICAL_NAMED_TERM,
  LEXICAL_RELATION,
  LEXICAL_THEME_CUES,
} from '@xsb/probes';
import { BUILT_IN_AUDIENCES, type LexicalPreferences, lexicalUtility } from '@xsb/weights';
import { scaffoldingFor } from './deck-scaffolding';
import { hasGlyphDebris } from './glyph-debris';
import { BulletRegister } from './near-duplicate-text';
import type { DeckOutline, OutlineSlide } from './schemas/deck-outline';
import { MAX_ITEMS_PER_SLIDE } from './write-outline-pptx';

export interface LexicalOutlineOptions {
  fallbackTitle: string;
  /** The deck title (e.g. `title` of `source_metadata.json`); without it the source's first heading or title line. */
  title?: string;
  /** ISO 639-1; without scaffolding words for it, untitled sections take the deck title and no takeaways slide is added. */
  language?: string;
  /** Audience profile description: its words raise the score of sentences that mention them. */
  audienceProfile?: string;
  /** A built-in profile's id lends its lexical preferences only when its description is unchanged. */
  audienceId?: string;
  /** What the audience values, as the offline utility judge reads it (a profile's `lexical` block). */
  audiencePreferences?: LexicalPreferences;
  subtitle?: string;
  /** Most slides in the deck including the title slide (default 8). */
  maxSlides?: number;
  /** Most bullets per content slide (default 4). */
  bulletsPerSlide?: number;
}

interface Section {
  heading: string;
  sentences: string[];
  tables: string[][][];
}

const STOP_WORDS = new Set(
  'the a an and or but of to in on for with by from as at is are was were be been being this that these those it its into than then so such can could will would should may might must not no we our you your they their he she his her them which who whom what when where how also more most other some any each all both only over under about after before between during through per via using used use'.split(
    ' ',
  ),
);

const MAX_BULLET_WORDS = 24;

const STANDALONE_NUMBER = /(?<![\p{L}\p{N}.,])\d/u;

/** The themes and level the lexical probe generator would give a sentence's probes (mirrors @xsb/probes). */
function predictedProbes(sentence: string): { themes: string[]; level: 1 | 2 } {
  const themes: string[] = [];
  const definition = LEXICAL_DEFINITION.test(sentence) || LEXICAL_GLOSSARY.test(sentence);
  if (definition) themes.push('definition');
  const number = STANDALONE_NUMBER.test(sentence);
  const named = [...sentence.matchAll(LEXICAL_NAMED_TERM)].some((match) => match.index > 0);
  if (number || named || !definition) {
    const cue = LEXICAL_THEME_CUES.find(([, pattern]) => pattern.test(sentence))?.[0];
    themes.push(cue ?? (number ? 'quantitative' : 'entity'));
  }
  return { themes, level: LEXICAL_RELATION.test(sentence) ? 2 : 1 };
}

/** The offline judge's utility (`lexicalUtility`, the one owner of the rule) of such a text probe. */
function judgedUtility(theme: string, level: 1 | 2, preferences: LexicalPreferences): number {
  const probe: Probe = {
    probe_id: 'predicted',
    source_case_id: 'predicted',
    scene: '',
    question: theme,
    answer: theme,
    evidence: [],
    level,
    modality: 'text',
    theme,
    metadata: {},
  };
  return lexicalUtility(probe, { id: 'planned', description: '', lexical: preferences }).value;
}

function sentenceUtility(sentence: string, preferences: LexicalPreferences): number {
  const { themes, level } = predictedProbes(sentence);
  return Math.max(...themes.map((theme) => judgedUtility(theme, level, preferences)));
}

/** A too-long sentence keeps a later clause the audience values more ("…: in a study, 33 of 43 …"). */
function valuedClause(
  sentence: string,
  preferences: LexicalPreferences,
  score: (text: string) => number,
): string | undefined {
  if (sentence.split(/\s+/).length <= MAX_BULLET_WORDS) return undefined;
  const [first, ...later] = sentence
    .replace(/[.!?]$/, '')
    .split(/[;:]\s+/)
    .map((clause) => clause.trim());
  const floor = sentenceUtility(first ?? '', preferences);
  let best: { clause: string; utility: number; score: number } | undefined;
  for (const clause of later) {
    const words = clause.split(/\s+/).length;
    if (words < 5 || words > MAX_BULLET_WORDS) continue;
    const candidate = { clause, utility: sentenceUtility(clause, preferences), score: score(clause) };
    if (candidate.utility <= floor) continue;
    if (
      !best ||
      candidate.utility > best.utility ||
      (candidate.utility === best.utility && candidate.score > best.score)
    )
      best = candidate;
  }
  return best && `${best.clause.charAt(0).toUpperCase()}${best.clause.slice(1)}.`;
}

/** Drops sentences the audience rates 0 (unless none would remain): the budget goes to what it values. */
function valuedSections(sections: Section[], preferences: LexicalPreferences): Section[] {
  const kept = sections.map((section) => ({
    ...section,
    sentences: section.sentences.filter((sentence) => sentenceUtility(sentence, preferences) > 0),
  }));
  return kept.some((section) => section.sentences.length > 0) ? kept : sections;
}

function resolvePreferences(options: LexicalOutlineOptions): LexicalPreferences | undefined {
  if (options.audiencePreferences) return options.audiencePreferences;
  const builtIn = BUILT_IN_AUDIENCES.find((profile) => profile.id === options.audienceId);
  if (!builtIn?.lexical) return undefined;
  const sameProfile =
    options.audienceProfile === undefined || options.audienceProfile.trim() === builtIn.description.trim();
  return sameProfile ? builtIn.lexical : undefined;
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const CJK_RUNS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー]+/gu;
/** CJK text has no spaces between words: a bullet may hold this many of its characters. */
const MAX_BULLET_CJK_CHARACTERS = 60;

/** Scoring words; Han/Kana runs (no spaces) count as character bigrams, as near-duplicate-text.ts does. */
function contentWords(text: string): string[] {
  const lower = text.toLowerCase();
  const bigrams: string[] = [];
  for (const [run] of lower.matchAll(CJK_RUNS)) {
    const characters = [...run];
    for (let index = 0; index + 1 < characters.length; index++)
      bigrams.push(`${characters[index]}${characters[index + 1]}`);
  }
  const words = (lower.replace(CJK_RUNS, ' ').match(/[\p{L}\p{N}][\p{L}\p{N}'-]*/gu) ?? []).filter(
    (word) => word.length >= 3 && !STOP_WORDS.has(word),
  );
  return [...words, ...bigrams];
}

/** Words of a sentence; in CJK text two characters count as one word. */
function wordCount(text: string): number {
  const cjk = text.match(new RegExp(CJK.source, 'gu'))?.length ?? 0;
  const spaced = text
    .replace(CJK_RUNS, ' ')
    .split(/\s+/)
    .filter((word) => /[\p{L}\p{N}]/u.test(word)).length;
  return spaced + Math.ceil(cjk / 2);
}

/** A CJK bullet of at most MAX_BULLET_CJK_CHARACTERS: cut at its last clause mark inside, else with `…`. */
function shortenCjk(sentence: string): string {
  const characters = [...sentence];
  if (characters.length <= MAX_BULLET_CJK_CHARACTERS) return sentence;
  const head = characters.slice(0, MAX_BULLET_CJK_CHARACTERS).join('');
  const clause = Math.max(head.lastIndexOf('；'), head.lastIndexOf('：'), head.lastIndexOf('，'));
  return clause >= 10 ? `${head.slice(0, clause)}。` : `${head}…`;
}

/** A long sentence ends at its last `;`/`:` inside MAX_BULLET_WORDS (a statement), else at `…` */
function shorten(sentence: string): string {
  if (CJK.test(sentence) && !/\s\S+\s/.test(sentence)) return shortenCjk(sentence);
  const words = sentence.split(/\s+/);
  if (words.length <= MAX_BULLET_WORDS) return sentence;
  for (let index = MAX_BULLET_WORDS - 1; index >= 7; index--) {
    if (/[;:]$/.test(words[index] ?? ''))
      return `${words
        .slice(0, index + 1)
        .join(' ')
        .slice(0, -1)}.`;
  }
  return `${words
    .slice(0, MAX_BULLET_WORDS)
    .join(' ')
    .replace(/[,;:]$/, '')} …`;
}

function plainInline(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(^|[^\w*])[*_]([^*_\s][^*_]*?)[*_](?=[^\w*]|$)/g, '$1$2')
    .replace(/`([^`]*)`/g, '$1');
}

/** Sentences of five words or more; one holding PDF glyph debris ("f 6 = id") never reaches a slide. */
function splitSentences(paragraph: string): string[] {
  return plainInline(paragraph)
    .split(/(?<=[.!?])\s+(?=[\p{Lu}\p{N}"“(])|(?<=[。！？])/u)
    .map((sentence) => sentence.replace(/\s+/g, ' ').trim())
    .filter((sentence) => wordCount(sentence) >= 5 && !hasGlyphDebris(sentence));
}

function parseTableRow(line: string): string[] {
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((cell) => cell.trim());
}

/** Whether every bracket a text opens it also closes ("{ U ⊆ X | U offen }" split at `|` is not). */
function balancedBrackets(text: string): boolean {
  const count = (pattern: RegExp) => text.match(pattern)?.length ?? 0;
  return count(/\{/g) === count(/\}/g) && count(/\(/g) === count(/\)/g) && count(/\[/g) === count(/\]/g);
}

/**
 * A pipe row, or ` | `-joined cells as @xsb/sources writes HTML rows; not set-builder notation
 * ("{ U ⊆ X | U offen }").
 */
function isTableRow(line: string): boolean {
  if (line.startsWith('|') && line.includes('|', 1)) return true;
  return /^[^|]+( \| [^|]+)+$/.test(line) && line.split(' | ').every(balancedBrackets);
}

const FORMULA_MARK = /[=≠<>≤≥∈∉⊂⊆⊃⊇→↦⇒⇔∼≅︷︸]/u;

/** Without Markdown headings: a short capitalised line after a sentence end that is not wrapped prose. */
function isPlainHeading(line: string, previous: string): boolean {
  if (line === '' || isTableRow(line) || !/\p{L}/u.test(line) || hasGlyphDebris(line)) return false;
  // A formula broken onto its own line ("Da M zusammenhängend ist und M = Z︸︷︷︸") or a figure's
  // label ("Xi") is no heading: a heading has a relation-free line and a word of three letters.
  if (FORMULA_MARK.test(line) || !/\p{L}{3}/u.test(line)) return false;
  const words = line.split(/\s+/).length;
  if (words > 8 || /[.,;:!?-]$/.test(line) || !/^[\p{Lu}\d]/u.test(line)) return false;
  // Wrapped prose: a sentence ends inside, or it stops on a short lower-case word ("… senectus et").
  if (/\p{Ll}[.!?]\s/u.test(line) || /\s\p{Ll}{1,3}$/u.test(line) || /,.*,/.test(line)) return false;
  return previous === '' || /[.!?:)]$/.test(previous) || /^\d+(\.\d+)*\.?\s/.test(line);
}

const MAX_TITLE_WORDS = 14;
const CONTENTS_HEADING =
  /^(contents|table of contents|inhalt|inhaltsverzeichnis|sommaire|table des matières|índice|contenido|目录|目次)$/iu;

/** Extracted text's title: its first lines while they end mid-phrase ("Einführung in die / Geometrie"). */
function leadingTitle(lines: string[]): { title: string; lines: number } | undefined {
  const first = lines.findIndex((line) => line.trim() !== '');
  if (first < 0) return undefined;
  let text = '';
  let index = first;
  for (; index < lines.length && index < first + 3; index++) {
    const line = (lines[index] ?? '').trim();
    if (line === '' || isTableRow(line)) break;
    text = text === '' ? line : text.endsWith('-') ? `${text}${line}` : `${text} ${line}`;
    if (!/(-|:|(^|\s)\p{Ll}{1,3})$/u.test(text)) {
      index++;
      break;
    }
  }
  // A first line whose sentence goes on in lower case on the next line is wrapped prose.
  if (/^\p{Ll}/u.test((lines[index] ?? '').trim())) return undefined;
  const words = text.split(/\s+/).length;
  if (words > MAX_TITLE_WORDS || /[.!?;,:-]$/.test(text) || /[.!?]\s/.test(text)) return undefined;
  const title = plainInline(text.replace(/^\d+(\.\d+)*\.?\s+/, ''));
  if (title === '' || CONTENTS_HEADING.test(title)) return undefined;
  return { title, lines: index };
}

/** `[line, marks, text]`; a plain heading is a section's (`##`): only leadingTitle titles the deck. */
function headingOf(line: string, plain: boolean): readonly string[] | null {
  if (plain) return [line, '##', line.replace(/^\d+(\.\d+)*\.?\s+/, '')];
  return /^(#{1,6})\s+(.+)$/.exec(line);
}

function splitSections(text: string, fallbackTitle: string): { title: string; sections: Section[] } {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const sections: Section[] = [];
  let title = '';
  let current: Section = { heading: '', sentences: [], tables: [] };
  let paragraph: string[] = [];
  let table: string[][] = [];
  const flushParagraph = () => {
    if (paragraph.length > 0) {
      const joined = paragraph
        .join('\n')
        .replace(/(\p{L})-\n(\p{Ll})/gu, '$1$2')
        .replace(/\n/g, ' ');
      current.sentences.push(...splitSentences(joined));
    }
    paragraph = [];
  };
  const flushTable = () => {
    if (table.length >= 2) current.tables.push(table);
    table = [];
  };
  const markdownHeadings = lines.some((line) => /^#{1,6}\s+\S/.test(line.trim()));
  const leading = markdownHeadings ? undefined : leadingTitle(lines);
  const start = leading?.lines ?? 0;
  let previousLine = leading ? (lines[start - 1]?.trim() ?? '') : '';
  if (leading) title = leading.title;
  let blankSeen = false;
  for (const raw of lines.slice(start)) {
    const line = raw.trim();
    // A line holding only a number in extracted text is a page number (or a footnote mark).
    if (!markdownHeadings && /^\d{1,4}$/.test(line)) continue;
    if (line === '') {
      blankSeen = true;
      previousLine = '';
      flushTable();
      continue;
    }
    // A page break inside a sentence (PDF pages are joined by a blank line): the paragraph goes on
    // when it has not ended and the next page starts in lower case.
    const continues =
      blankSeen &&
      paragraph.length > 0 &&
      !/[.!?:]$/.test(paragraph[paragraph.length - 1] ?? '') &&
      /^\p{Ll}/u.test(line);
    if (blankSeen && !continues) flushParagraph();
    blankSeen = false;
    const heading = headingOf(line, !markdownHeadings && !continues && isPlainHeading(line, previousLine));
    previousLine = line;
    if (heading) {
      flushParagraph();
      flushTable();
      const text = (heading[2] ?? '').replace(/#+$/, '').trim();
      if (!title && heading[1] === '#') {
        title = plainInline(text);
        continue;
      }
      if (current.heading || current.sentences.length > 0 || current.tables.length > 0)
        sections.push(current);
      current = { heading: text, sentences: [], tables: [] };
      continue;
    }
    if (isTableRow(line)) {
      flushParagraph();
      if (/^\|?\s*:?-{2,}/.test(line)) continue;
      table.push(parseTableRow(plainInline(line)));
      continue;
    }
    flushTable();
    paragraph.push(line.replace(/^[-*+]\s+|^\d+[.)]\s+/, ''));
  }
  flushParagraph();
  flushTable();
  if (current.heading || current.sentences.length > 0 || current.tables.length > 0) sections.push(current);
  return { title: title || fallbackTitle, sections };
}

function parseNumber(cell: string): number | undefined {
  const cleaned = cell.replace(/[,$€£%\s]/g, '');
  if (!/^-?\d+(\.\d+)?$/.test(cleaned)) return undefined;
  return Number(cleaned);
}

function chartFromTable(table: string[][], title: string): OutlineSlide['chart'] {
  const [header, ...body] = table;
  if (!header || body.length < 3 || body.length > 12) return undefined;
  const series: Array<{ name: string; values: number[] }> = [];
  for (let column = 1; column < header.length && series.length < 3; column++) {
    const values = body.map((row) => parseNumber(row[column] ?? ''));
    if (values.every((value) => value !== undefined)) {
      series.push({ name: header[column] ?? `Series ${column}`, values: values as number[] });
    }
  }
  if (series.length === 0) return undefined;
  return { type: 'bar', title, categories: body.map((row) => row[0] ?? ''), series };
}

/** The offline judge's extractive outline: demos and tests need no model (README "Audience conditioning"). */
export function planLexicalOutline(sourceText: string, options: LexicalOutlineOptions): DeckOutline {
  const maxSlides = Math.max(2, options.maxSlides ?? 8);
  const perSlide = Math.min(MAX_ITEMS_PER_SLIDE, options.bulletsPerSlide ?? 4);
  const words = scaffoldingFor(options.language);
  const extracted = splitSections(sourceText, options.fallbackTitle);
  const title = options.title?.trim() || extracted.title;
  const preferences = resolvePreferences(options);
  const score = sentenceScorer(sourceText, options.audienceProfile, preferences);
  const sections = preferences ? valuedSections(extracted.sections, preferences) : extracted.sections;
  const topSentences = bulletPicker(score, preferences);
  const firstTable = sections.flatMap((section) => section.tables.map((table) => ({ section, table })))[0];
  const tableSlides = firstTable ? tableSlidesOf(firstTable, words, title) : [];
  const takeawaysSlot = words ? 1 : 0;
  const contentBudget = Math.max(1, maxSlides - 1 - takeawaysSlot - tableSlides.length);
  const slides: OutlineSlide[] = [];
  const tablePosition = firstTable ? sections.indexOf(firstTable.section) : -1;
  for (const { section, position } of rankedSections(sections, score, perSlide, contentBudget)) {
    // The table's slides stand where its section stands in the source, whether or not it was chosen.
    if (position > tablePosition) slides.push(...tableSlides.splice(0));
    const bullets = topSentences(section.sentences, perSlide);
    if (bullets.length === 0) continue;
    const untitled = words ? (slides.length === 0 ? words.overview : words.moreDetails) : title;
    slides.push({ title: plainInline(section.heading) || untitled, bullets });
    if (firstTable?.section === section) slides.push(...tableSlides.splice(0));
  }
  slides.push(...tableSlides);
  // Without words in the source's language there is no title for a closing slide: it is left out.
  if (words && slides.length < maxSlides - 1) {
    const takeaways = topSentences(
      sections.flatMap((section) => section.sentences),
      perSlide,
    );
    if (takeaways.length > 0) slides.push({ title: words.keyTakeaways, bullets: takeaways });
  }
  if (slides.length === 0) {
    throw new InputError(
      'the source has no sentences to build slides from (sentences of at least five words are needed)',
      { code: 'empty_source' },
    );
  }
  return { title, subtitle: options.subtitle ?? '', slides: slides.slice(0, maxSlides - 1) };
}

/**
 * Σ log(1 + df) of content words (+1.5 per profile word) / √length, ×1.2 with a number, ×(0.5 + utility)
 * when conditioned.
 */
function sentenceScorer(
  sourceText: string,
  audienceProfile: string | undefined,
  preferences: LexicalPreferences | undefined,
): (sentence: string) => number {
  const frequency = new Map<string, number>();
  for (const word of contentWords(sourceText)) frequency.set(word, (frequency.get(word) ?? 0) + 1);
  const profileWords = new Set(contentWords(audienceProfile ?? ''));
  return (sentence) => {
    const words = contentWords(sentence);
    if (words.length === 0) return 0;
    let total = 0;
    for (const word of words)
      total += Math.log1p(frequency.get(word) ?? 0) + (profileWords.has(word) ? 1.5 : 0);
    const numberBonus = /\d/.test(sentence) ? 1.2 : 1;
    // A sentence the audience values most (utility 1) outweighs one it does not value threefold.
    const audience = preferences ? 0.5 + sentenceUtility(sentence, preferences) : 1;
    return (total / Math.sqrt(words.length)) * numberBonus * audience;
  };
}

/** Best-scored unused sentences in source order; sources repeat themselves: near-copies are passed over. */
function bulletPicker(
  score: (sentence: string) => number,
  preferences: LexicalPreferences | undefined,
): (sentences: string[], count: number) => string[] {
  const kept = new BulletRegister();
  const used = new Set<string>();
  return (sentences, count) => {
    const ranked = sentences
      .map((sentence, position) => ({ sentence, position, score: score(sentence) }))
      .filter((item) => !used.has(item.sentence))
      .sort((a, b) => b.score - a.score || a.position - b.position);
    const chosen: Array<{ bullet: string; position: number }> = [];
    for (const item of ranked) {
      if (chosen.length >= count) break;
      used.add(item.sentence);
      const bullet =
        (preferences ? valuedClause(item.sentence, preferences, score) : undefined) ?? shorten(item.sentence);
      if (kept.add(bullet)) chosen.push({ bullet, position: item.position });
    }
    return chosen.sort((a, b) => a.position - b.position).map((item) => item.bullet);
  };
}

function tableSlidesOf(
  first: { section: Section; table: string[][] },
  words: ReturnType<typeof scaffoldingFor>,
  title: string,
): OutlineSlide[] {
  const [header, ...body] = first.table;
  const width = Math.min(5, header?.length ?? 0);
  if (!header || width === 0) return [];
  const topic = plainInline(first.section.heading);
  const tableTitle = words ? (topic ? words.keyFiguresOf(topic) : words.keyFigures) : topic || title;
  const slides: OutlineSlide[] = [
    {
      title: tableTitle,
      bullets: [],
      table: {
        columns: header.slice(0, width),
        rows: body.slice(0, 8).map((row) => Array.from({ length: width }, (_, index) => row[index] ?? '')),
      },
    },
  ];
  const chartTopic = topic || (words ? words.keyFigures : title);
  const chart = chartFromTable(first.table, chartTopic);
  if (chart) slides.push({ title: words ? words.atAGlance(chartTopic) : chartTopic, bullets: [], chart });
  return slides;
}

function rankedSections(
  sections: Section[],
  score: (sentence: string) => number,
  perSlide: number,
  budget: number,
): Array<{ section: Section; position: number }> {
  const hasFullSections = sections.some((section) => section.sentences.length >= 2);
  return (
    sections
      .map((section, position) => ({
        section,
        position,
        weight: section.sentences
          .map(score)
          .sort((a, b) => b - a)
          .slice(0, perSlide)
          .reduce((a, b) => a + b, 0),
      }))
      // A one-sentence section (a byline, a caption) makes a thin slide when fuller sections exist.
      .filter((item) => item.section.sentences.length >= (hasFullSections ? 2 : 1))
      .sort((a, b) => b.weight - a.weight || a.position - b.position)
      .slice(0, budget)
      .sort((a, b) => a.position - b.position)
  );
}
