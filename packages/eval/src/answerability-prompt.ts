import type { Probe } from '@xsb/core';
import type { CompletionRequest, ContentPart } from '@xsb/llm';
import { z } from 'zod';
import { type JudgeInputMode, type ProbeJudgment, probeForJudge, uncoveredJudgment } from './probe-judgment';

export const ANSWERABILITY_PROMPT_VERSION = 'answerability-v1';

export const ANSWERABILITY_SYSTEM = `You are a strict evaluator of presentation slide decks.
You decide, for each probe (a question with the answer the source document supports), whether an audience member who sees ONLY the visible slides could answer it correctly.
Rules:
- Judge only what the slides visibly show. The source context is there so you know what the correct answer means; it is NOT evidence that the deck covers anything.
- "covered" is true only when the slides state the expected answer or an equivalent one with the same key facts (numbers, names, direction of effects). A partial or vague mention is not covered.
- "answer" is the answer the deck supports, quoted or closely paraphrased from the slides ("" when not covered).
- "cited_evidence" names the slide that supports the answer, as "Slide N" ("" when not covered).
- "confidence" is your confidence in the judgment, from 0 to 1.
Return one judgment for every probe id you were given, and nothing else.`;

const yesNo = z.preprocess((value) => {
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase();
    if (['true', 'yes', 'covered', 'y', '1'].includes(text)) return true;
    if (['false', 'no', 'not covered', 'uncovered', 'n', '0'].includes(text)) return false;
  }
  return value;
}, z.boolean());

const confidence = z.preprocess((value) => {
  if (typeof value === 'string') {
    const text = value.trim();
    const number = Number.parseFloat(text);
    if (Number.isFinite(number)) return text.endsWith('%') || number > 1 ? number / 100 : number;
  }
  if (typeof value === 'number' && value > 1 && value <= 100) return value / 100;
  return value;
}, z.number().min(0).max(1));

const citation = z.preprocess((value) => {
  if (typeof value === 'number') return `Slide ${value}`;
  if (Array.isArray(value))
    return value.map((v) => (typeof v === 'number' ? `Slide ${v}` : String(v))).join(', ');
  return value ?? '';
}, z.string());

const judgmentSchema = z.object({
  probe_id: z.coerce.string(),
  covered: yesNo,
  answer: z.preprocess((value) => value ?? '', z.string()).default(''),
  cited_evidence: citation.default(''),
  confidence: confidence.default(0),
});

/** The judge's answer: `{"judgments": [...]}`, or a bare array of judgments. */
export const answerabilityAnswerSchema = z.preprocess(
  (value) => (Array.isArray(value) ? { judgments: value } : value),
  z.object({ judgments: z.array(judgmentSchema) }),
);
export type AnswerabilityAnswer = z.infer<typeof answerabilityAnswerSchema>;

export interface AnswerabilityPromptInput {
  mode: JudgeInputMode;
  /** The full extracted visible deck text (text mode). */
  deckText: string;
  /** Rendered slides, in order (image mode). */
  slideImages?: ReadonlyArray<{ index: number; data: Uint8Array; mediaType: 'image/png' | 'image/jpeg' }>;
  sourceContext: string;
  probes: readonly Probe[];
}

/**
 * One batch request: the deck (text or slide images) and the source context first, marked as a
 * cacheable prefix shared by every batch of the deck, then the probes of this batch as JSON.
 */
export function buildAnswerabilityRequest(input: AnswerabilityPromptInput): CompletionRequest {
  const deckParts: ContentPart[] =
    input.mode === 'image'
      ? [
          { type: 'text', text: 'THE DECK (rendered slides, in order):' },
          ...(input.slideImages ?? []).flatMap((image): ContentPart[] => [
            { type: 'text', text: `[Slide ${image.index}]` },
            { type: 'image', mediaType: image.mediaType, data: image.data },
          ]),
        ]
      : [
          {
            type: 'text',
            text: `THE DECK (visible slide text, in order):\n<deck>\n${input.deckText}\n</deck>`,
          },
        ];
  const probes = input.probes.map(probeForJudge);
  return {
    system: ANSWERABILITY_SYSTEM,
    temperature: 0,
    maxTokens: 4096,
    messages: [
      {
        role: 'user',
        content: [
          ...deckParts,
          {
            type: 'text',
            text: `SOURCE CONTEXT (for meaning only, not evidence of coverage):\n<source>\n${input.sourceContext}\n</source>`,
            cacheBreakpoint: true,
          },
          {
            type: 'text',
            text:
              `PROBES (${probes.length}):\n${JSON.stringify(probes, null, 2)}\n\n` +
              'Answer with JSON only, in this shape:\n' +
              '{"judgments": [{"probe_id": "...", "covered": true, "answer": "...", "cited_evidence": "Slide 3", "confidence": 0.9}]}',
          },
        ],
      },
    ],
  };
}

/**
 * Turns a parsed answer into exactly one judgment per requested probe, in the requested order: a
 * probe the judge skipped is uncovered with zero confidence; ids it invented are returned apart so
 * the caller can log them; a repeated id keeps its first judgment.
 */
export function reconcileJudgments(
  answer: AnswerabilityAnswer,
  probeIds: readonly string[],
): { judgments: ProbeJudgment[]; missing: string[]; unknown: string[] } {
  const wanted = new Set(probeIds);
  const byId = new Map<string, ProbeJudgment>();
  const unknown: string[] = [];
  for (const judgment of answer.judgments) {
    const id = judgment.probe_id.trim();
    if (!wanted.has(id)) {
      unknown.push(id);
      continue;
    }
    if (!byId.has(id)) {
      byId.set(id, {
        probe_id: id,
        covered: judgment.covered,
        answer: judgment.answer,
        cited_evidence: judgment.cited_evidence,
        confidence: judgment.confidence,
      });
    }
  }
  const missing = probeIds.filter((id) => !byId.has(id));
  const judgments = probeIds.map((id) => byId.get(id) ?? uncoveredJudgment(id));
  return { judgments, missing, unknown };
}
