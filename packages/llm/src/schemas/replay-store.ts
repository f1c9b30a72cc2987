import { z } from 'zod';

/**
 * One line of a replay store (`replay:<store.jsonl>`, spec 002 "Replay stores"): the completion a
 * fixed model gave for the prompt with this key. Every line of one store carries the same model label.
 */
export const replayStoreLineSchema = z.looseObject({
  key: z.string().min(1),
  model: z.string().min(1),
  completion: z.string(),
});
export type ReplayStoreLine = z.infer<typeof replayStoreLineSchema>;

/**
 * One line of `<store>.pending.jsonl`, written by `record:<store.jsonl>`: a rendered prompt that
 * still needs a completion. `prompt` is the messages as readable text (binary parts as
 * `[image image/png sha256:…]` placeholders); `messages` keeps the structure. `repeat` (from 1 on)
 * marks a test–retest repeat of the same prompt: its own key, so the store needs its own completion
 * (the model asked once more), not a copy of the first answer.
 */
export const replayPendingLineSchema = z.looseObject({
  key: z.string().min(1),
  model: z.string().optional(),
  system: z.string(),
  prompt: z.string(),
  messages: z.array(z.unknown()),
  stage: z.string().optional(),
  responseSchema: z.unknown().optional(),
  temperature: z.number().optional(),
  maxTokens: z.number().optional(),
  repeat: z.number().int().min(1).optional(),
  seed: z.number().optional(),
  stop: z.array(z.string()).optional(),
});
export type ReplayPendingLine = z.infer<typeof replayPendingLineSchema>;
