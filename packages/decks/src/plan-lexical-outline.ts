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

export interface LexicalOutlineOptions {
  /** Fallback deck title when the source has no heading. */
  fallbackTitle: string;
  /** The deck title (e.g. `title` of `source_metadata.json`); without it the source's first heading or title line. */
  title?: string;
  /**
   * The source's language (ISO 639-1). Slide titles the planner adds ("Key takeaways", "Overview")
   * are written in it; a language without scaffolding words, or none, gets no added words at all:
   * untitled sections take the deck title and there is no closing takeaways slide.
   */
  language?: string;
  /** Audience profile description: its words raise the score of sentences that mention them. */
  audienceProfile?: string;
  /**
   * The audience id. When `audiencePreferences` is absent and the id names a built-in profile of
   * `@xsb/weights` whose description is `audienceProfile` (or no description is given), that profile's
   * lexical preferences condition the outline; a user profile that reuses a built-in id with another
   * description does not inherit them.
   */
  audienceId?: string;
  /** What the audience values, as the offline utility judge reads it (a profile's `lexical` block). */
  audiencePreferences?: LexicalPreferences;
  /** Shown under the title, e.g. "For decision makers". */
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
/** The layout rule: at most six readable items on a slide. */
const MAX_BULLETS_PER_SLIDE = 6;

const STANDALONE_NUMBER = /(?<![\p{L}\p{N}.,])\d/u;

/**
 * The themes the lexical probe generator would give the probes of a sentence, and their level: a
 * definition gives a `definition` probe; a number or a name not opening the sentence gives cloze
 * probes themed by the first cue (else `quantitative` for a number, `entity` for a name). A sentence
 * with no target at all is judged by its cue theme (else `entity`), as a model's probe would be.
 */
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

/**
 * The utility the offline judge (`lexicalUtility` of `@xsb/weights`, the one owner of the rule) gives
 * the probe the lexical generator would write of this theme and level: a text probe, so a profile that
 * prefers the `text` modality takes that step too.
 */
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

/**
 * Multiplies a conditioned deck's sentence scores: 0.5 + the judged utility of the most useful probe
 * the sentence would yield, so a sentence the audience values most (utility 1) outweighs one it does
 * not value (utility 0) threefold.
 */
function audienceFactor(sentence: string, preferences: LexicalPreferences): number {
  return 0.5 + sentenceUtility(sentence, preferences);
}

function sentenceUtility(sentence: string, preferences: LexicalPreferences): number {
  const { themes, level } = predictedProbes(sentence);
  return Math.max(...themes.map((theme) => judgedUtility(theme, level, preferences)));
}

/**
 * For a conditioned deck, a sentence too long for a bullet keeps a later clause (split at `;` or
 * `:`, 5 to MAX_BULLET_WORDS words) when the audience values it more than the first one (a higher
 * judged utility; among several, the highest score): "designed to be easy to understand: in a user
 * study, 33 of 43 students scored higher …" keeps the study for an audience that values results.
 * Otherwise (and always for an agnostic deck) the sentence is shortened as usual.
 */
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

/**
 * A conditioned deck leaves out the sentences whose probes the audience's profile rates 0 (e.g.
 * history for specialists, mechanism detail for decision makers): the slide budget then goes to what
 * the audience values, and a small source gives a shorter deck instead of padding. If nothing would
 * remain, every sentence stays.
 */
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

/**
 * Scoring words: letters and digits of three or more, not stop words; runs of Han or Kana (no spaces
 * between words) count as their character bigrams, as near-duplicate-text.ts compares them.
 */
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

/**
 * A bullet of at most MAX_BULLET_WORDS words: a long sentence ends at its last semicolon or colon
 * inside the limit (the clause before it is a statement of its own), else it is cut with `…`.
 */
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

/** Drops inline Markdown (emphasis, code ticks, links) so slides show plain words. */
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
 * A table row: a Markdown pipe row (`| a | b |`), or cells joined by ` | ` as `@xsb/sources` writes
 * HTML table rows into `source_context.txt` — unless a cell opens a bracket another one closes: that
 * is set-builder notation ("T = { U ⊆ X1 × X2 | U offen }"), not a table.
 */
function isTableRow(line: string): boolean {
  if (line.startsWith('|') && line.includes('|', 1)) return true;
  return /^[^|]+( \| [^|]+)+$/.test(line) && line.split(' | ').every(balancedBrackets);
}

/** Relations, arrows and brace glyphs of a formula, which section headings do not hold. */
const FORMULA_MARK = /[=≠<>≤≥∈∉⊂⊆⊃⊇→↦⇒⇔∼≅︷︸]/u;

/**
 * In text without Markdown headings (PDF or HTML extractions), a short line (at most 8 words) that
 * starts with a capital or a section number, has no closing punctuation and follows the end of a
 * sentence (or a blank line) is taken as a heading, unless it reads as a wrapped line of prose (a
 * sentence end inside, two commas, a closing hyphen or short lower-case word), holds no letter (a
 * page number) or no word of three letters (a figure's label), a formula's relation or arrow, or
 * PDF glyph debris (see glyph-debris.ts).
 */
function isPlainHeading(line: string, previous: string): boolean {
  if (line === '' || isTableRow(line) || !/\p{L}/u.test(line) || hasGlyphDebris(line)) return false;
  // A formula broken onto its own line ("Da M zusammenhängend ist und M = Z︸︷︷︸") or a figure's
  // label ("Xi") is no heading: a heading has a relation-free line and a word of three letters.
  if (FORMULA_MARK.test(line) || !/\p{L}{3}/u.test(line)) return false;
  const words = line.split(/\s+/).length;
  if (words > 8 || /[.,;:!?-]$/.test(line) || !/^[\p{Lu}\d]/u.test(line)) return false;
  // A wrapped line of prose: a sentence ends inside it, or it stops on a short lower-case word
  // ("… senectus et"), which headings do not.
  if (/\p{Ll}[.!?]\s/u.test(line) || /\s\p{Ll}{1,3}$/u.test(line) || /,.*,/.test(line)) return false;
  return previous === '' || /[.!?:)]$/.test(previous) || /^\d+(\.\d+)*\.?\s/.test(line);
}

const MAX_TITLE_WORDS = 14;
/** A table of contents' heading is not the document's title. */
const CONTENTS_HEADING =
  /^(contents|table of contents|inhalt|inhaltsverzeichnis|sommaire|table des matières|índice|contenido|目录|目次)$/iu;

/**
 * The title of extracted text (PDF, HTML), which starts with it when its first lines read like one:
 * the first line, continued onto the next (up to three lines) while it ends in a hyphen, a colon or a
 * short lower-case word ("Einführung in die / Geometrie und Topologie"), at most MAX_TITLE_WORDS
 * words, with no sentence end inside and no closing comma-like mark. A first line that is prose
 * ("Hello, here is some text …") or a table of contents' heading gives no title.
 */
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

/** A heading line as `[line, marks, text]`: a markdown one, or a plain one read as a section's (`##`). */
function headingOf(line: string, plain: boolean): readonly string[] | null {
  // A plain heading is a section's: only the leading lines (leadingTitle) title the deck.
  if (plain) return [line, '##', line.replace(/^\d+(\.\d+)*\.?\s+/, '')];
  return /^(#{1,6})\s+(.+)$/.exec(line);
}

/** Splits markdown-ish text into sections at headings; pipe tables are kept apart from prose. */
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

/** A chart from a table whose non-first columns are all numbers (up to three series). */
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

/**
 * The deterministic `lexical` planner: an extractive outline, so demos and tests need no model.
 * Sentences are scored by the summed document frequency of their content words (divided by the
 * square root of their length), plus a bonus for numbers and, for a conditioned deck, for words of
 * the audience profile. The best sections become slides, in source order, with their top sentences
 * as bullets (in source order too); the first pipe table becomes a native table and, if numeric, a
 * bar chart, placed where its section stands in the source; a closing "Key takeaways" slide holds the
 * best remaining sentences. Sentences and headings with PDF glyph debris ("f 6 = id") are left out.
 * With the audience's lexical preferences (explicit, or a built-in profile's via `audienceId`), a
 * conditioned deck also weighs each sentence by the offline judge's utility of the probes it would
 * yield (0.5 + U), drops sentences of utility 0 and keeps the more valued clause of a long sentence;
 * see the package README ("Audience conditioning").
 * Blind spots: no paraphrase, no cross-section synthesis, headings are trusted as slide titles.
 */
export function planLexicalOutline(sourceText: string, options: LexicalOutlineOptions): DeckOutline {
  const maxSlides = Math.max(2, options.maxSlides ?? 8);
  const perSlide = Math.min(MAX_BULLETS_PER_SLIDE, options.bulletsPerSlide ?? 4);
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
 * A sentence's score: Σ log(1 + document frequency) of its content words (+1.5 for a word of the
 * audience profile) / √length, ×1.2 with a number, × the audience factor with preferences.
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
    const audience = preferences ? audienceFactor(sentence, preferences) : 1;
    return (total / Math.sqrt(words.length)) * numberBonus * audience;
  };
}

/**
 * Picks a slide's bullets: the best-scored sentences not used yet, in source order. Sources repeat
 * themselves (running heads, blind text, a summary restating the introduction): a bullet that repeats
 * or nearly copies one already in the deck is passed over for the next best.
 */
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

/** The first table as a native table slide (≤ 5 columns, ≤ 8 rows) and, if numeric, a bar chart slide. */
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

/** The sections that fill the slide budget: best summed top scores, then back in source order. */
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
