import { hashBytes } from '@xsb/core';
import { ANSWERABILITY_SYSTEM, CLAIM_EXTRACTION_SYSTEM, CLAIM_VERIFICATION_SYSTEM } from '@xsb/eval';
import type { FakeLlmReply, FakeLlmRequest } from '@xsb/llm/testing';

/** A number in [0, 1) fixed by the seed and the request's text: the same prompt always gets the same answer. */
export function promptCoin(request: Pick<FakeLlmRequest, 'system' | 'text'>, seed: number): number {
  return (
    Number.parseInt(hashBytes(`${seed}\u0000${request.system}\u0000${request.text}`).slice(0, 8), 16) /
    2 ** 32
  );
}

/**
 * A judge that answers at random (for the fake server of `@xsb/llm/testing`): rubric items get
 * `\boxed{yes}` or `\boxed{no}` with equal odds, the holistic baseline three scores drawn uniformly
 * from 1–5, answerability a coin per probe, claim verification one of the three labels per claim
 * (claims are extracted as the deck's lines, deterministically). Deterministic per seed and prompt,
 * independent of the deck's quality — what a useless judge looks like, for checking that
 * meta-evaluation calls it useless.
 */
export function randomJudgeReply(
  request: Pick<FakeLlmRequest, 'system' | 'text'>,
  seed: number,
): FakeLlmReply {
  const coin = promptCoin(request, seed);
  const itemCoin = (id: string) =>
    promptCoin({ system: request.system, text: `${id}\u0000${request.text}` }, seed);
  if (request.system === ANSWERABILITY_SYSTEM) {
    const ids = [...request.text.matchAll(/"probe_id": "([^"]+)"/g)].map((match) => match[1]!);
    return {
      text: JSON.stringify({
        judgments: ids.map((id) => ({
          probe_id: id,
          covered: itemCoin(id) < 0.5,
          answer: 'random',
          cited_evidence: 'Slide 1',
          confidence: 0.5,
        })),
      }),
    };
  }
  if (request.system === CLAIM_EXTRACTION_SYSTEM) {
    const claims: Array<{ slide: number; claim: string }> = [];
    let slide = 0;
    for (const line of request.text.split('\n')) {
      const header = /^\[Slide (\d+)\]$/.exec(line.trim());
      if (header) slide = Number(header[1]);
      else if (slide > 0 && line.trim().split(/\s+/).length >= 4) claims.push({ slide, claim: line.trim() });
    }
    return { text: JSON.stringify({ claims: claims.slice(0, 40) }) };
  }
  if (request.system === CLAIM_VERIFICATION_SYSTEM) {
    const ids = [...request.text.matchAll(/"claim_id": "([^"]+)"/g)].map((match) => match[1]!);
    const labels = ['supported', 'contradicted', 'unsupported'];
    return {
      text: JSON.stringify({
        verdicts: ids.map((id) => ({
          claim_id: id,
          label: labels[Math.floor(itemCoin(id) * 3)],
          rationale: 'random',
        })),
      }),
    };
  }
  if (request.system.includes('Rate the deck')) {
    const score = (salt: number) =>
      1 + Math.floor(promptCoin({ system: request.system, text: `${salt}${request.text}` }, seed) * 5);
    return {
      text: JSON.stringify({
        content: { score: score(1), reason: 'random' },
        design: { score: score(2), reason: 'random' },
        coherence: { score: score(3), reason: 'random' },
      }),
    };
  }
  return { text: `The requirement is judged. \\boxed{${coin < 0.5 ? 'yes' : 'no'}}` };
}
