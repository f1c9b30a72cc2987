import type { CompletionRequest } from '@xsb/llm';
import { z } from 'zod';
import type { DeckClaim } from './extract-claims-lexically';

export const CLAIM_EXTRACTION_SYSTEM = `You extract atomic factual claims from presentation slides.
An atomic claim is one self-contained factual statement that could be checked against a source document: a number, a result, a definition, a causal or comparative statement, a named entity's role.
Rules:
- Use only the visible slide text given. Do not add facts.
- Split compound bullets into separate claims; resolve pronouns from the slide so each claim stands alone.
- Skip headings without content, agenda items, questions, calls to action and pure opinions.
- Keep the slide number each claim comes from.`;

export const claimExtractionAnswerSchema = z.preprocess(
  (value) => (Array.isArray(value) ? { claims: value } : value),
  z.object({
    claims: z.array(
      z.object({
        slide: z.preprocess(
          (v) => (typeof v === 'string' ? Number.parseInt(v.replace(/\D+/g, ''), 10) : v),
          z.number().int().min(1),
        ),
        claim: z.string().trim().min(1),
      }),
    ),
  }),
);
export type ClaimExtractionAnswer = z.infer<typeof claimExtractionAnswerSchema>;

export function buildClaimExtractionRequest(deckText: string, maxClaims: number): CompletionRequest {
  return {
    system: CLAIM_EXTRACTION_SYSTEM,
    temperature: 0,
    maxTokens: 4096,
    messages: [
      {
        role: 'user',
        content:
          `SLIDES:\n<deck>\n${deckText}\n</deck>\n\n` +
          `List at most ${maxClaims} atomic factual claims, the most important first. ` +
          'Answer with JSON only: {"claims": [{"slide": 2, "claim": "..."}]}',
      },
    ],
  };
}

/**
 * Claims in slide order (ties keep the judge's order), ids `s<slide>_c<n>`; claims naming a slide the
 * deck does not have are dropped, duplicates kept once, at most `maxClaims`.
 */
export function claimsFromExtraction(
  answer: ClaimExtractionAnswer,
  slideCount: number,
  maxClaims: number,
): DeckClaim[] {
  const seen = new Set<string>();
  const kept = answer.claims
    .filter((item) => item.slide <= slideCount)
    .filter((item) => {
      const key = item.claim.toLowerCase();
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .slice(0, maxClaims)
    .map((item, order) => ({ ...item, order }))
    .sort((a, b) => a.slide - b.slide || a.order - b.order);
  const perSlide = new Map<number, number>();
  return kept.map((item) => {
    const n = (perSlide.get(item.slide) ?? 0) + 1;
    perSlide.set(item.slide, n);
    return { claim_id: `s${item.slide}_c${n}`, slide_index: item.slide, text: item.claim };
  });
}
