import { hashBytes } from '@xsb/core';
import type { FakeLlmReply, FakeLlmRequest } from '@xsb/llm/testing';

/** A number in [0, 1) fixed by the seed and the request's text: the same prompt always gets the same answer. */
export function promptCoin(request: Pick<FakeLlmRequest, 'system' | 'text'>, seed: number): number {
  return Number.parseInt(hashBytes(`${seed}\u0000${request.system}\u0000${request.text}`).slice(0, 8), 16) / 2 ** 32;
}

/**
 * A judge that answers at random (for the fake server of `@xsb/llm/testing`): rubric items get
 * `\boxed{yes}` or `\boxed{no}` with equal odds, the holistic baseline three scores drawn uniformly
 * from 1–5. Deterministic per seed and prompt, independent of the deck's quality — what a useless
 * judge looks like, for checking that meta-evaluation calls it useless.
 */
export function randomJudgeReply(request: Pick<FakeLlmRequest, 'system' | 'text'>, seed: number): FakeLlmReply {
  const coin = promptCoin(request, seed);
  if (request.system.includes('Rate the deck')) {
    const score = (salt: number) => 1 + Math.floor(promptCoin({ system: request.system, text: `${salt}${request.text}` }, seed) * 5);
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
