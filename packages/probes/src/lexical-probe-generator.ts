import type { SourcePageFurniture } from '@xsb/sources';
import { filterReasonFor } from './filter-probes';
import type { GeneratedProbe, GenerationInput, GenerationOutput, ProbeGenerator } from './generated-probe';
import {
  LEXICAL_DEFINITION,
  LEXICAL_GLOSSARY,
  LEXICAL_NAMED_TERM,
  LEXICAL_RELATION,
  LEXICAL_THEME_CUES,
} from './lexical-cues';
import { definitionSubject } from './lexical-definition-subject';
import {
  type QuestionTemplates,
  questionTemplates,
  type TemplateLanguage,
  templateLanguageFor,
} from './lexical-question-templates';
import { isMathDebrisNumber, isPointerNumber, isUnusableTerm } from './lexical-target-guards';
import { normalizeText } from './text-tokens';

/** Most probes one lexical generation writes for one chunk (the most informative sentences win). */
const LEXICAL_MAX_PROBES_PER_GENERATION = 40;

const MIN_SENTENCE_CHARS = 40;
const MAX_SENTENCE_CHARS = 400;
const BLANK = '____';

type Target =
  | { kind: 'definition'; term: string; definition: string }
  | { kind: 'number' | 'term'; value: string; at: number };

interface Sentence {
  text: string;
  start: number;
  targets: Target[];
  score: number;
  theme: string | undefined;
  level: 1 | 2;
}

// A number standing alone: glued to a letter ("2y", "x2") it is part of a formula or a name.
const NUMBER = /(?<![\p{L}\p{N}.,])\d+(?:[.,]\d+)*(?:\s?%|\s?percent\b)?(?![\p{L}\p{N}])/gu;
const VAGUE_SUBJECT = /^(it|this|that|these|those|there|they|he|she|we|i|you|here|which|what|such)\b/i;
// A definition that points back ("the breakdown of this partnership") needs the sentence before it.
const ANAPHORIC = /\b(this|these|those|such|above|below|former|latter)\b/i;
const BIBLIOGRAPHIC = /^\s*\[\d+\]|\bdoi\b|\bet al\b|\bpp\.\s*\d|\bproceedings\b/i;

// A capitalised run that starts with a function word is a title fragment ("In Search of …"), not a name.
const LEADING_FUNCTION_WORD =
  /^(in|on|at|by|of|for|to|and|or|the|a|an|with|from|as|if|when|while|after|before)\s/i;
const DOT_LEADER = /(?:\.\s*){4,}/;
// Inline markdown marks (bold, italics with underscores, code) that a question should not show.
const MARKDOWN_MARKS = /\*\*|__|`/g;

/** The offline generator `lexical`: cloze and what-is questions from informative sentences (algorithm, blind spots: README). */
export class LexicalProbeGenerator implements ProbeGenerator {
  readonly id = 'lexical';
  readonly fingerprint: string;

  constructor(private readonly maxProbes = LEXICAL_MAX_PROBES_PER_GENERATION) {
    this.fingerprint = `lexical-v6:max${maxProbes}`;
  }

  async generate(input: GenerationInput): Promise<GenerationOutput> {
    const body = withoutFurniture(input.chunkBody, input.chunkStart, input.furniture);
    const language = templateLanguageFor(input.sourceLanguage);
    const built = splitSentences(body, input.chunkStart)
      .map((sentence) => withTargets(sentence, input.sourceLanguage))
      .filter((sentence) => sentence.targets.length > 0)
      .map((sentence) => ({
        sentence,
        probe: probeFor(
          sentence,
          sentence.targets[input.generationIndex % sentence.targets.length]!,
          input,
          language,
        ),
      }));
    // A probe the stage's filters will remove (a URL, an ISBN, a credit line …) is still written, so
    // `filtered_by_reason` counts it, but it takes no place among the most informative sentences.
    const kept = built.filter(({ probe }) => filterReasonFor(probe) === null);
    const chosen = new Set(
      [...kept]
        .sort((a, b) => b.sentence.score - a.sentence.score || a.sentence.start - b.sentence.start)
        .slice(0, this.maxProbes),
    );
    const probes = built
      .filter((entry) => chosen.has(entry) || filterReasonFor(entry.probe) !== null)
      .map((entry) => entry.probe);
    return {
      probes,
      malformed: 0,
      exchanges: [
        {
          request: {
            generator: 'lexical',
            chunk_index: input.chunkIndex,
            generation_index: input.generationIndex,
            chunk_start: input.chunkStart,
            chunk_chars: input.chunkBody.length,
            max_probes: this.maxProbes,
          },
          response: { probes },
        },
      ],
    };
  }
}

/** Sentences of a chunk with their source offsets (README: Sentences); the text keeps its length so offsets stay exact. */
function splitSentences(body: string, offset: number): Array<{ text: string; start: number }> {
  const joined = body.replace(/([^\n]{60,})\n(?=[^\n])/g, (whole, line: string) =>
    /[.!?:]["')\u201d]?\s*$/.test(line) ? whole : `${line} `,
  );
  const sentences: Array<{ text: string; start: number }> = [];
  for (const line of joined.matchAll(/[^\n]+/g)) {
    let from = 0;
    const boundaries = [...line[0].matchAll(/(?<=[.!?]["')\u201d]?)\s+(?=["'(\u201c]?[A-Z0-9])/g)].map(
      (m) => m.index,
    );
    for (const boundary of [...boundaries, line[0].length]) {
      const raw = line[0].slice(from, boundary);
      const marker = /^\s*(?:[-*\u2022]|\d{1,2}[.)])\s+/.exec(raw)?.[0].length ?? 0;
      const text = raw.slice(marker).trim();
      if (
        text.length >= MIN_SENTENCE_CHARS &&
        text.length <= MAX_SENTENCE_CHARS &&
        /[.!?]["')\u201d]?$/.test(text)
      ) {
        sentences.push({
          text,
          start: offset + line.index + from + marker + raw.slice(marker).indexOf(text),
        });
      }
      from = boundary;
    }
  }
  return sentences;
}

function withTargets(sentence: { text: string; start: number }, sourceLanguage?: string): Sentence {
  const targets: Target[] = [];
  const theme = LEXICAL_THEME_CUES.find(([, cue]) => cue.test(sentence.text))?.[0];
  const level = LEXICAL_RELATION.test(sentence.text) ? 2 : 1;
  if (BIBLIOGRAPHIC.test(sentence.text) || isLayoutNoise(sentence.text) || !bracketsBalance(sentence.text))
    return { ...sentence, targets, score: 0, theme, level };
  const bare = sentence.text.replace(/[.!?]+$/, '');
  const definition = LEXICAL_DEFINITION.exec(bare) ?? LEXICAL_GLOSSARY.exec(bare);
  const subject = definition?.groups ? definitionSubject(definition.groups.term!) : undefined;
  const defined =
    subject !== undefined &&
    !VAGUE_SUBJECT.test(subject.subject) &&
    !ANAPHORIC.test(definition!.groups!.definition!);
  if (defined) {
    targets.push({ kind: 'definition', term: subject.subject, definition: definition!.groups!.definition! });
  }
  const numbers = [...sentence.text.matchAll(NUMBER)]
    .map((m) => ({ value: m[0], at: m.index }))
    .filter(
      (target) =>
        !givesItselfAway(sentence.text, target) &&
        !isMathDebrisNumber(sentence.text, target) &&
        !isPointerNumber(sentence.text, target),
    );
  for (const { value, at } of numbers) targets.push({ kind: 'number', value, at });
  const terms = [...sentence.text.matchAll(LEXICAL_NAMED_TERM)]
    .map((m) => ({ value: m[0], at: m.index }))
    .filter(
      (target) =>
        target.at > 0 &&
        !LEADING_FUNCTION_WORD.test(target.value) &&
        !isUnusableTerm(sentence.text, target, sourceLanguage) &&
        !givesItselfAway(sentence.text, target),
    );
  for (const { value, at } of terms) targets.push({ kind: 'term', value, at });
  const score = (defined ? 3 : 0) + 2 * numbers.length + terms.length;
  return { ...sentence, targets, score, theme, level };
}

/**
 * The chunk with its page furniture (running headers/footers, page numbers; source offsets) blanked
 * to line breaks of the same length: no sentence starts, ends or runs through one, and offsets stay
 * exact.
 */
function withoutFurniture(body: string, offset: number, furniture: readonly SourcePageFurniture[]): string {
  const lines = furniture
    .map((line) => ({
      start: Math.max(0, line.start - offset),
      end: Math.min(body.length, line.end - offset),
    }))
    .filter((line) => line.start < line.end)
    .sort((a, b) => a.start - b.start);
  if (lines.length === 0) return body;
  const parts: string[] = [];
  let at = 0;
  for (const line of lines) {
    const start = Math.max(at, line.start);
    if (line.end <= start) continue;
    parts.push(body.slice(at, start), '\n'.repeat(line.end - start));
    at = line.end;
  }
  parts.push(body.slice(at));
  return parts.join('');
}

/**
 * Table-of-contents lines ("24 2.2 Differentiable manifolds . . . . . .") and formula or table debris
 * from PDFs: dot leaders, or fewer than 40% letters among the visible characters.
 */
function isLayoutNoise(text: string): boolean {
  if (DOT_LEADER.test(text)) return true;
  const visible = text.replace(/\s+/g, '').length;
  const letters = text.match(/\p{L}/gu)?.length ?? 0;
  return letters < 0.4 * visible;
}

/**
 * False for a sentence with an unclosed or unopened round bracket: a split in the wrong place ("… von
 * Christian Bär (2." of "(2. Auflage)") or a list item's "2)" glued to the sentence before.
 */
function bracketsBalance(text: string): boolean {
  let depth = 0;
  for (const char of text) {
    if (char === '(') depth += 1;
    else if (char === ')') depth -= 1;
    if (depth < 0) return false;
  }
  return depth === 0;
}

/**
 * True when the blanked value still appears elsewhere in the sentence as a whole token run ("A COP of
 * 3.5 means that 1 kWh yields ____ kWh" would show the answer 3.5 in the question itself).
 */
function givesItselfAway(text: string, target: { value: string; at: number }): boolean {
  const rest = ` ${normalizeText(`${text.slice(0, target.at)} | ${text.slice(target.at + target.value.length)}`)} `;
  return rest.includes(` ${normalizeText(target.value)} `);
}

function withoutMarkdown(text: string): string {
  return text.replace(MARKDOWN_MARKS, '');
}

/**
 * "What is X?" with a common-noun term in lower case ("Seasonal performance factor" → "seasonal
 * performance factor"); a single word ("Raft") or a term with other capitals or an acronym keeps its case.
 */
function definitionQuestion(term: string, templates: QuestionTemplates): string {
  const words = withoutMarkdown(term).split(/\s+/);
  const [first, ...rest] = words;
  const commonNoun =
    rest.length > 0 && /^[A-Z][a-z-]*$/.test(first!) && rest.every((word) => !/[A-Z]/.test(word));
  const shown = commonNoun ? [first!.toLowerCase(), ...rest].join(' ') : words.join(' ');
  return templates.definition(shown.replace(/^(A|An|The)\b/, (article) => article.toLowerCase()));
}

function probeFor(
  sentence: Sentence,
  target: Target,
  input: GenerationInput,
  language: TemplateLanguage,
): GeneratedProbe {
  const templates = questionTemplates(language);
  const evidence = [
    { locator: locatorFor(sentence.start, sentence.text.length, input), text: sentence.text },
  ];
  if (target.kind === 'definition') {
    return {
      question: definitionQuestion(target.term, templates),
      answer: withoutMarkdown(target.definition),
      evidence,
      level: 2,
      modality: 'text',
      theme: 'definition',
      templateLanguage: language,
    };
  }
  const before = withoutMarkdown(sentence.text.slice(0, target.at));
  const after = withoutMarkdown(sentence.text.slice(target.at + target.value.length));
  return {
    question: templates.cloze(`${before}${BLANK}${after}`),
    answer: target.value,
    evidence,
    level: sentence.level,
    modality: 'text',
    theme: sentence.theme ?? (target.kind === 'number' ? 'quantitative' : 'entity'),
    templateLanguage: language,
  };
}

function locatorFor(offset: number, length: number, input: GenerationInput): string {
  const page = input.pages.find((span) => offset >= span.start && offset < span.end);
  return page ? `page ${page.page}` : `chars ${offset}-${offset + length}`;
}
