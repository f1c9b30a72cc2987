import type { GeneratedProbe, GenerationInput, GenerationOutput, ProbeGenerator } from './generated-probe';

/** Most probes one lexical generation writes for one chunk (the most informative sentences win). */
export const LEXICAL_MAX_PROBES_PER_GENERATION = 40;

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
}

const NUMBER = /(?<![\p{L}\p{N}.,])\d+(?:[.,]\d+)*(?:\s?%|\s?percent\b)?/gu;
const NAMED_TERM =
  /\b(?:[A-Z][a-zA-Z0-9-]+|[A-Z]{2,}[a-z]?)(?:\s+(?:of|for|and|the|de|in)\s+[A-Z][a-zA-Z0-9-]+|\s+[A-Z][a-zA-Z0-9-]+)+\b|\b[A-Z]{2,6}s?\b/g;
const DEFINITION =
  /^(?<term>[A-Za-z][\w-]*(?:\s+[\w-]+){0,4}?)\s+(?:is|are|refers to|is defined as|means|denotes)\s+(?<definition>(?:a|an|the)\s.+)$/;
// A glossary line: "Seasonal performance factor (SPF): the ratio of ...".
const GLOSSARY =
  /^(?<term>[A-Z][A-Za-z-]*(?:\s+[A-Za-z-]+){0,5}?)(?:\s*\([A-Z][A-Za-z]{1,9}\))?:\s+(?<definition>(?:a|an|the)\s.+)$/;
const VAGUE_SUBJECT = /^(it|this|that|these|those|there|they|he|she|we|i|you|here|which|what|such)\b/i;
// A definition that points back ("the breakdown of this partnership") needs the sentence before it.
const ANAPHORIC = /\b(this|these|those|such|above|below|former|latter)\b/i;
const BIBLIOGRAPHIC = /^\s*\[\d+\]|\bdoi\b|\bet al\b|\bpp\.\s*\d|\bproceedings\b/i;

/**
 * The offline generator `lexical`: deterministic cloze and what-is questions from informative
 * sentences of the chunk. Sentences (see `splitSentences`: 40–400 characters, ending a sentence) are
 * scanned for targets: a definition ("X is a/an/the Y", or a glossary line "X (ABBR): a/an/the Y", with a concrete subject of at most five words →
 * "What is X?", answer Y, level 2, theme `definition`), numbers ("Fill in the blank" with the number
 * blanked, level 1, theme `quantitative`) and named terms (capitalised multi-word names or acronyms not
 * opening the sentence, blanked, level 1, theme `entity`). Definitions whose definiens points back
 * ("this", "these", "such", "above") are skipped. The evidence is the sentence, verbatim.
 * Sample g of k blanks target g mod n of each sentence, so the k samples differ where a sentence has
 * several targets and coincide (and are merged by dedup) where it has one. Sentences are ranked by
 * 3·definitions + 2·numbers + terms, ties by position, and the top {@link LEXICAL_MAX_PROBES_PER_GENERATION}
 * are used. Blind spots: it cannot write level-3 synthesis probes, never paraphrases, misses facts not
 * carried by numbers, names or "is a" definitions, and trusts sentence splitting on abbreviations.
 */
export class LexicalProbeGenerator implements ProbeGenerator {
  readonly id = 'lexical';
  readonly fingerprint: string;

  constructor(private readonly maxProbes = LEXICAL_MAX_PROBES_PER_GENERATION) {
    this.fingerprint = `lexical-v1:max${maxProbes}`;
  }

  async generate(input: GenerationInput): Promise<GenerationOutput> {
    const sentences = splitSentences(input.chunkBody, input.chunkStart)
      .map(withTargets)
      .filter((sentence) => sentence.targets.length > 0);
    const chosen = [...sentences]
      .sort((a, b) => b.score - a.score || a.start - b.start)
      .slice(0, this.maxProbes)
      .sort((a, b) => a.start - b.start);
    const probes = chosen.map((sentence) =>
      probeFor(sentence, sentence.targets[input.generationIndex % sentence.targets.length]!, input),
    );
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

/**
 * Sentences of a chunk with their source offsets. A line break inside a paragraph is read as a space
 * when the line before is long (>= 60 characters) and does not end a sentence: PDF extraction and
 * wrapped text break lines mid-sentence, while headings are short. The text keeps its length, so
 * offsets stay exact and the evidence differs from the source only in whitespace. A sentence must end
 * with `.`, `!` or `?` (optionally followed by a closing quote or bracket); leading list markers are
 * dropped.
 */
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

function withTargets(sentence: { text: string; start: number }): Sentence {
  const targets: Target[] = [];
  if (BIBLIOGRAPHIC.test(sentence.text)) return { ...sentence, targets, score: 0 };
  const bare = sentence.text.replace(/[.!?]+$/, '');
  const definition = DEFINITION.exec(bare) ?? GLOSSARY.exec(bare);
  if (
    definition?.groups &&
    !VAGUE_SUBJECT.test(definition.groups.term!) &&
    !ANAPHORIC.test(definition.groups.definition!)
  ) {
    targets.push({
      kind: 'definition',
      term: definition.groups.term!,
      definition: definition.groups.definition!,
    });
  }
  const numbers = [...sentence.text.matchAll(NUMBER)].map((m) => ({ value: m[0], at: m.index }));
  for (const { value, at } of numbers) targets.push({ kind: 'number', value, at });
  const terms = [...sentence.text.matchAll(NAMED_TERM)].filter((m) => m.index > 0);
  for (const m of terms) targets.push({ kind: 'term', value: m[0], at: m.index });
  const score = (definition ? 3 : 0) + 2 * numbers.length + terms.length;
  return { ...sentence, targets, score };
}

function probeFor(sentence: Sentence, target: Target, input: GenerationInput): GeneratedProbe {
  const evidence = [
    { locator: locatorFor(sentence.start, sentence.text.length, input), text: sentence.text },
  ];
  if (target.kind === 'definition') {
    return {
      question: `What is ${target.term.replace(/^(A|An|The)\b/, (article) => article.toLowerCase())}?`,
      answer: target.definition,
      evidence,
      level: 2,
      modality: 'text',
      theme: 'definition',
    };
  }
  const blanked = `${sentence.text.slice(0, target.at)}${BLANK}${sentence.text.slice(target.at + target.value.length)}`;
  return {
    question: `Fill in the blank: "${blanked}"`,
    answer: target.value,
    evidence,
    level: 1,
    modality: 'text',
    theme: target.kind === 'number' ? 'quantitative' : 'entity',
  };
}

function locatorFor(offset: number, length: number, input: GenerationInput): string {
  const page = input.pages.find((span) => offset >= span.start && offset < span.end);
  return page ? `page ${page.page}` : `chars ${offset}-${offset + length}`;
}
