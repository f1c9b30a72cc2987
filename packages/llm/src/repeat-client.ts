import type { LlmClient } from './completion-types';
import { repeatPart } from './request-key';

/** The client asking every request as repeat `repeat` (test–retest), each its own cache entry; 0: the client. */
export function repeatClient(client: LlmClient, repeat: number): LlmClient {
  repeatPart({ repeat });
  if (repeat === 0) return client;
  return {
    judgeId: client.judgeId,
    ...(client.preferredConcurrency !== undefined
      ? { preferredConcurrency: client.preferredConcurrency }
      : {}),
    complete: (request, options) => client.complete({ ...request, repeat }, options),
  };
}
