import { countVisibleWords } from '@xsb/decks';
import type { PerturbationChange } from '../schemas/meta-perturbation';
import { chooseUnits, excerpt, type KindOutcome, type PptxVariant, skippedOutcome } from './kind-outcome';
import { isTitleShape } from './slide-model';
import { applyTextEdits, type ParagraphInsert, type RunEdit } from './slide-texts';
import {
  CITATION_PATTERN,
  corruptNumber,
  FABRICATED_CLAIM_TEMPLATES,
  FILLER_SENTENCES,
  fillTemplate,
  NAMED_TERM_PATTERN,
  NUMBER_PATTERN,
  removeSpan,
  startsSentence,
  unitsFor,
} from './text-patterns';

interface TextUnit {
  position: number;
  run: number;
  start: number;
  end: number;
  text: string;
  type: 'number' | 'term' | 'citation';
}

function runsOf(variant: PptxVariant, position: number) {
  return variant.texts.get(position).model.runs;
}

/** Whether a run is the first run holding text in its paragraph (so its first word starts a sentence). */
function opensParagraph(variant: PptxVariant, position: number, runIndex: number): boolean {
  const { model } = variant.texts.get(position);
  const paragraph = model.paragraphs[model.runs[runIndex]!.paragraph]!;
  const first = paragraph.runs.find((index) => model.runs[index]!.text.trim() !== '');
  return first === runIndex;
}

function findUnits(variant: PptxVariant, pattern: RegExp, type: TextUnit['type']): TextUnit[] {
  const units: TextUnit[] = [];
  for (const position of variant.content) {
    runsOf(variant, position).forEach((run, runIndex) => {
      for (const match of run.text.matchAll(pattern)) {
        const start = match.index ?? 0;
        if (type === 'term' && startsSentence(run.text, start, opensParagraph(variant, position, runIndex)))
          continue;
        units.push({ position, run: runIndex, start, end: start + match[0].length, text: match[0], type });
      }
    });
  }
  return units;
}

type Span = TextUnit & { replace: (text: string) => string; label: string };

/** Replaces spans inside runs (right to left within a run) and returns the run edits and per-run changes. */
function editSpans(
  variant: PptxVariant,
  spans: ReadonlyArray<Span>,
): { edits: RunEdit[]; changes: PerturbationChange[] } {
  const byRun = new Map<string, Span[]>();
  for (const span of [...spans].sort((a, b) => a.position - b.position || a.run - b.run)) {
    const key = `${span.position}:${span.run}`;
    byRun.set(key, [...(byRun.get(key) ?? []), span]);
  }
  const edits: RunEdit[] = [];
  const changes: PerturbationChange[] = [];
  for (const group of byRun.values()) {
    group.sort((a, b) => b.start - a.start);
    const { position, run } = group[0]!;
    const old = runsOf(variant, position)[run]!.text;
    let text = old;
    for (const span of group) text = span.replace(text);
    const details = [...group].reverse().map((span) => span.label);
    if (text === old) continue;
    edits.push({ position, run, text });
    changes.push({ slide: position + 1, field: 'text', old, new: text, detail: details.join('; ') });
  }
  return { edits, changes };
}

function finish(
  variant: PptxVariant,
  edits: RunEdit[],
  changes: PerturbationChange[],
  eligible: number,
  changed: number,
  inserts: ParagraphInsert[] = [],
): KindOutcome {
  const texts = applyTextEdits(variant.texts, edits, inserts);
  const expectedSlides = variant.deck.slides.map(({ notes }, position) => ({
    visible_text: texts[position]!,
    notes,
  }));
  return { eligible, changed, changes, expectedSlides };
}

/** `corrupt_numbers`: changes one digit of a share of the numbers in the slide text, so each value differs. */
export function corruptNumbers(variant: PptxVariant): KindOutcome {
  const units = findUnits(variant, NUMBER_PATTERN, 'number');
  if (units.length === 0) return skippedOutcome('the content slides hold no number');
  const chosen = chooseUnits(units, variant);
  const { edits, changes } = editSpans(
    variant,
    chosen.map((unit) => {
      const next = corruptNumber(unit.text, variant.random);
      return {
        ...unit,
        label: `"${unit.text}" → "${next}"`,
        replace: (text: string) => text.slice(0, unit.start) + next + text.slice(unit.end),
      };
    }),
  );
  return finish(variant, edits, changes, units.length, chosen.length);
}

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** `swap_facts`: swaps named terms or numbers between two slides, pair by pair. */
export function swapFacts(variant: PptxVariant): KindOutcome {
  const terms = findUnits(variant, NAMED_TERM_PATTERN, 'term');
  const numbers = findUnits(variant, NUMBER_PATTERN, 'number').filter(
    (number) =>
      !terms.some(
        (term) =>
          term.position === number.position &&
          term.run === number.run &&
          number.start < term.end &&
          term.start < number.end,
      ),
  );
  const units = [...numbers, ...terms];
  const pairsWanted = unitsFor(variant.severity, Math.max(1, Math.floor(units.length / 2)));
  const used = new Set<TextUnit>();
  const pairs: Array<[TextUnit, TextUnit]> = [];
  const order = shuffled(units, variant.random);
  for (const unit of order) {
    if (pairs.length >= pairsWanted) break;
    if (used.has(unit)) continue;
    const partner = order.find(
      (other) =>
        !used.has(other) &&
        other !== unit &&
        other.type === unit.type &&
        other.position !== unit.position &&
        other.text !== unit.text,
    );
    if (!partner) continue;
    used.add(unit);
    used.add(partner);
    pairs.push([unit, partner]);
  }
  if (pairs.length === 0)
    return skippedOutcome(
      'no two content slides hold different numbers or named terms to swap',
      units.length,
    );
  const swap = (x: TextUnit, y: TextUnit): Span => ({
    ...x,
    label: `"${x.text}" → "${y.text}" (from slide ${y.position + 1})`,
    replace: (text: string) => text.slice(0, x.start) + y.text + text.slice(x.end),
  });
  const { edits, changes } = editSpans(
    variant,
    pairs.flatMap(([a, b]) => [swap(a, b), swap(b, a)]),
  );
  return finish(variant, edits, changes, units.length, pairs.length * 2);
}

/** `remove_citations`: strips a share of the source references from the slide text. */
export function removeCitations(variant: PptxVariant): KindOutcome {
  const units = findUnits(variant, CITATION_PATTERN, 'citation');
  if (units.length === 0)
    return skippedOutcome(
      'the content slides hold no source reference ("Section 2.3", "Table 1", "p. 12", "[4]", "(Author, 2020)", "Source: …")',
    );
  const chosen = chooseUnits(units, variant);
  const { edits, changes } = editSpans(
    variant,
    chosen.map((unit) => ({
      ...unit,
      label: `removed "${unit.text}"`,
      replace: (text: string) => removeSpan(text, unit.start, unit.end),
    })),
  );
  return finish(variant, edits, changes, units.length, chosen.length);
}

/** Body paragraphs (not titles, not tables) that hold text, on content slides. */
function bodyParagraphs(
  variant: PptxVariant,
): Array<{ position: number; paragraph: number; lastRun: number }> {
  const out: Array<{ position: number; paragraph: number; lastRun: number }> = [];
  for (const position of variant.content) {
    const { model } = variant.texts.get(position);
    model.paragraphs.forEach((paragraph, index) => {
      const shape = model.shapes[paragraph.shape]!;
      if (shape.name !== 'sp' || isTitleShape(shape)) return;
      const withText = paragraph.runs.filter((run) => model.runs[run]!.text.trim() !== '');
      if (withText.length === 0) return;
      out.push({ position, paragraph: index, lastRun: withText[withText.length - 1]! });
    });
  }
  return out;
}

/** `pad_words`: appends a filler sentence (no number, no name, no claim) to a share of the body paragraphs. */
export function padWords(variant: PptxVariant): KindOutcome {
  const paragraphs = bodyParagraphs(variant);
  if (paragraphs.length === 0) return skippedOutcome('the content slides hold no body paragraph');
  const chosen = chooseUnits(paragraphs, variant);
  const edits: RunEdit[] = [];
  const changes: PerturbationChange[] = [];
  for (const { position, lastRun } of chosen) {
    const old = runsOf(variant, position)[lastRun]!.text;
    const filler = FILLER_SENTENCES[Math.floor(variant.random() * FILLER_SENTENCES.length)]!;
    const trimmed = old.trimEnd();
    const separator = /[.!?…:]$/.test(trimmed) ? ' ' : '. ';
    const text = `${trimmed}${separator}${filler}${old.slice(trimmed.length)}`;
    edits.push({ position, run: lastRun, text });
    changes.push({
      slide: position + 1,
      field: 'text',
      old,
      new: text,
      detail: `+${countVisibleWords(filler)} filler words`,
    });
  }
  return finish(variant, edits, changes, paragraphs.length, chosen.length);
}

function integer(random: () => number, low: number, high: number): number {
  return low + Math.floor(random() * (high - low + 1));
}

/** `inject_claims`: adds one fabricated but plausible sentence to a share of the content slides. */
export function injectClaims(variant: PptxVariant): KindOutcome {
  const paragraphs = bodyParagraphs(variant);
  const lastBySlide = new Map<number, { position: number; paragraph: number; lastRun: number }>();
  for (const entry of paragraphs) lastBySlide.set(entry.position, entry);
  const slides = [...lastBySlide.values()];
  if (slides.length === 0) return skippedOutcome('the content slides hold no body paragraph');
  const chosen = chooseUnits(slides, variant);
  const deckText = variant.deck.slides.map((slide) => slide.visible_text).join('\n');
  const deckNumbers = new Set([...deckText.matchAll(NUMBER_PATTERN)].map((match) => match[0]));
  const termUnits = findUnits(variant, NAMED_TERM_PATTERN, 'term');
  const allTerms = termUnits.map((unit) => unit.text);
  const inserts: ParagraphInsert[] = [];
  const changes: PerturbationChange[] = [];
  for (const target of chosen) {
    const slideTerms = termUnits.filter((unit) => unit.position === target.position).map((unit) => unit.text);
    const pool = slideTerms.length > 0 ? slideTerms : allTerms;
    const term = pool.length > 0 ? pool[Math.floor(variant.random() * pool.length)]! : 'the approach';
    const template =
      FABRICATED_CLAIM_TEMPLATES[Math.floor(variant.random() * FABRICATED_CLAIM_TEMPLATES.length)]!;
    let values = { T: term, Y: '', P: '', N: '' };
    for (let attempt = 0; attempt < 50; attempt += 1) {
      values = {
        T: term,
        Y: String(integer(variant.random, 2027, 2039)),
        P: String(integer(variant.random, 11, 89)),
        N: String(integer(variant.random, 3, 48)),
      };
      if (!deckNumbers.has(values.Y) && !deckNumbers.has(values.P) && !deckNumbers.has(values.N)) break;
    }
    const filled = fillTemplate(template, values);
    const sentence = filled.charAt(0).toUpperCase() + filled.slice(1);
    inserts.push({ position: target.position, paragraph: target.paragraph, text: sentence });
    const anchor = runsOf(variant, target.position)[target.lastRun]!.text;
    changes.push({
      slide: target.position + 1,
      field: 'text',
      old: '',
      new: sentence,
      fabricated: true,
      detail: `new paragraph after "${excerpt(anchor)}"`,
    });
  }
  return finish(variant, [], changes, slides.length, chosen.length, inserts);
}
