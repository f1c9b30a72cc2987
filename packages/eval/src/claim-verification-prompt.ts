import { type ClaimLabel, correctnessSchema } from '@xsb/core';
import type { CompletionRequest } from '@xsb/llm';
import { z } from 'zod';
import type { DeckClaim } from './extract-claims-lexically';
import type { RetrievedSnippet } from './source-retriever';

export const CLAIM_VERIFICATION_SYSTEM = `You verify claims from a slide deck against excerpts of its source document.
For each claim, use only the source snippets given with it:
- "supported": the snippets state the claim or directly entail it (same numbers, entities and direction).
- "contradicted": the snippets state something incompatible with the claim (a different number, the opposite direction, a different entity).
- "unsupported": the snippets neither support nor contradict it.
Rounding that keeps the meaning is fine. Give a one-sentence rationale.`;

/** The label enum of correctness.json, so the parser accepts exactly what the artifact can hold. */
const claimLabelSchema = correctnessSchema.shape.claims.element.shape.label;

const label = z.preprocess(
  (value) =>
    typeof value === 'string'
      ? value
          .trim()
          .toLowerCase()
          .replace(/[^a-z]/g, '')
      : value,
  claimLabelSchema,
);

export const claimVerificationAnswerSchema = z.preprocess(
  (value) => (Array.isArray(value) ? { verdicts: value } : value),
  z.object({
    verdicts: z.array(
      z.object({
        claim_id: z.coerce.string(),
        label,
        rationale: z.preprocess((v) => v ?? '', z.string()).default(''),
      }),
    ),
  }),
);
export type ClaimVerificationAnswer = z.infer<typeof claimVerificationAnswerSchema>;

export function buildClaimVerificationRequest(
  items: ReadonlyArray<{ claim: DeckClaim; snippets: readonly RetrievedSnippet[] }>,
): CompletionRequest {
  const payload = items.map(({ claim, snippets }) => ({
    claim_id: claim.claim_id,
    claim: claim.text,
    source_snippets: snippets.map((snippet) => snippet.text),
  }));
  return {
    system: CLAIM_VERIFICATION_SYSTEM,
    temperature: 0,
    maxTokens: 4096,
    messages: [
      {
        role: 'user',
        content:
          `CLAIMS WITH SOURCE SNIPPETS:\n${JSON.stringify(payload, null, 2)}\n\n` +
          'Answer with JSON only: {"verdicts": [{"claim_id": "...", "label": "supported|contradicted|unsupported", "rationale": "..."}]}',
      },
    ],
  };
}

/**
 * One verdict per claim in the batch order. A claim the judge left out is `unsupported` with that
 * reason (it lowers correctness like any unsupported claim); unknown ids are returned for the log.
 */
export function reconcileVerdicts(
  answer: ClaimVerificationAnswer,
  claimIds: readonly string[],
): { verdicts: Array<{ claim_id: string; label: ClaimLabel; rationale: string }>; unknown: string[] } {
  const wanted = new Set(claimIds);
  const byId = new Map<string, { label: ClaimLabel; rationale: string }>();
  const unknown: string[] = [];
  for (const verdict of answer.verdicts) {
    const id = verdict.claim_id.trim();
    if (!wanted.has(id)) unknown.push(id);
    else if (!byId.has(id)) byId.set(id, { label: verdict.label, rationale: verdict.rationale });
  }
  return {
    verdicts: claimIds.map((id) => ({
      claim_id: id,
      ...(byId.get(id) ?? {
        label: 'unsupported' as const,
        rationale: 'the judge returned no verdict for this claim',
      }),
    })),
    unknown,
  };
}
