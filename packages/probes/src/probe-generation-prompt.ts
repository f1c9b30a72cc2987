import { type CompletionRequest, extractJson } from '@xsb/llm';
import type { GeneratedProbe, GenerationInput } from './generated-probe';

const PROBE_GENERATION_SYSTEM = `You write probes for a benchmark of slide decks. A probe is a question-answer pair that a reader of a good presentation about the source should be able to answer, together with the verbatim source passage that supports the answer.

Rules:
- Use only the source text you are given. Never use outside knowledge.
- Every evidence "text" must be copied VERBATIM from the source: an exact, contiguous quote of one sentence or a short passage (at most about 300 characters). Do not paraphrase, shorten with ellipses, or merge separate passages into one quote.
- "locator" says where the quote is: "page N" when the source shows page numbers or is a PDF, else a section heading or "paragraph N".
- Questions must be self-contained: no "Figure 3", "Table 2", "Section 4", "[12]", "the paper", "the authors" without naming what is meant.
- Do not ask about the reference list, bibliography or who is cited.
- Answers are short (a phrase or one sentence) and fully supported by the evidence.
- level: 1 = a single stated fact (number, name, definition); 2 = a relation, cause, comparison or explanation; 3 = a synthesis that needs several passages.
- modality: "text", "table", "figure" or "equation": where in the source the information lives.
- theme: one lower-case word or short phrase for the topic of the probe (e.g. "method", "result", "motivation", "definition", "limitation", "impact", "cost").
- Cover the whole source: main claims, methods, key numbers, definitions, results, limitations and implications.

Answer with a JSON array only, no prose, in this shape:
[{"question": "...", "answer": "...", "evidence": [{"locator": "page 2", "text": "verbatim quote"}], "level": 1, "modality": "text", "theme": "result"}]`;

/** Sampling temperature for probe generation: the k samples should differ, so it is not 0. */
const PROBE_GENERATION_TEMPERATURE = 0.7;

/**
 * The generation request for one chunk and one of its k samples. The sample index goes in as the seed
 * so the k requests differ (and never share a cache entry); the source chunk ends the cacheable prefix.
 */
export function buildProbeGenerationRequest(input: GenerationInput): CompletionRequest {
  const header = [
    `Case: ${input.caseId}`,
    `Title: ${input.title || '(untitled)'}`,
    `Scene: ${input.scene}`,
    `Chunk ${input.chunkIndex + 1} of ${input.chunkCount}.`,
  ].join('\n');
  return {
    system: PROBE_GENERATION_SYSTEM,
    messages: [
      {
        role: 'user',
        content: [
          {
            type: 'text',
            text: `${header}\n\n<source>\n${input.chunkText}\n</source>`,
            cacheBreakpoint: true,
          },
          {
            type: 'text',
            text: 'Write 15 to 30 probes for this source as a JSON array, following the rules exactly.',
          },
        ],
      },
    ],
    temperature: PROBE_GENERATION_TEMPERATURE,
    seed: input.generationIndex,
    maxTokens: 8000,
    stage: 'probes',
  };
}

export const PROBE_GENERATION_CORRECTION =
  'Your answer was not a JSON array of probes. Reply again with ONLY the JSON array described in the instructions: no prose, no code fence.';

export interface ParsedProbeAnswer {
  probes: GeneratedProbe[];
  /** Items that were not usable probes. */
  malformed: number;
}

/** Reads a generation answer (accepted shapes: README); unusable items are counted, not guessed; null: no list at all. */
export function parseProbeGenerationAnswer(text: string): ParsedProbeAnswer | null {
  const value = extractJson(text);
  const list = Array.isArray(value)
    ? value
    : value && typeof value === 'object' && Array.isArray((value as { probes?: unknown }).probes)
      ? (value as { probes: unknown[] }).probes
      : null;
  if (!list) return null;
  const parsed: ParsedProbeAnswer = { probes: [], malformed: 0 };
  for (const item of list) {
    const probe = readProbeItem(item);
    if (probe) parsed.probes.push(probe);
    else parsed.malformed += 1;
  }
  return parsed;
}

function readProbeItem(item: unknown): GeneratedProbe | null {
  if (!item || typeof item !== 'object' || Array.isArray(item)) return null;
  const record = item as Record<string, unknown>;
  const question = stringField(record.question);
  const answer = stringField(record.answer);
  if (!question || !answer) return null;
  const rawEvidence = Array.isArray(record.evidence) ? record.evidence : [record.evidence];
  const evidence: GeneratedProbe['evidence'] = [];
  for (const entry of rawEvidence) {
    if (typeof entry === 'string' && entry.trim()) evidence.push({ locator: '', text: entry.trim() });
    else if (entry && typeof entry === 'object') {
      const textValue = stringField((entry as Record<string, unknown>).text);
      if (textValue)
        evidence.push({
          locator: stringField((entry as Record<string, unknown>).locator) ?? '',
          text: textValue,
        });
    }
  }
  if (evidence.length === 0) return null;
  const level = typeof record.level === 'string' ? Number(record.level.trim()) : record.level;
  if (level !== 1 && level !== 2 && level !== 3) return null;
  return {
    question,
    answer,
    evidence,
    level,
    modality: stringField(record.modality)?.toLowerCase() ?? 'text',
    theme: stringField(record.theme)?.toLowerCase() ?? 'general',
  };
}

function stringField(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}
