import type { ModelPrice } from '@xsb/core';
import type { TokenUsage } from './completion-types';

/**
 * The day the default table was last checked against the providers' pricing pages. Anthropic rows:
 * platform.claude.com/docs/en/about-claude/pricing (online, 5-minute cache write, cache hit, and
 * "Batch API: 50 % discount"); OpenAI rows as first written for xsb (not re-checked that day).
 */
export const DEFAULT_PRICES_AS_OF = '2026-12-01';

/** Both providers bill batch usage at half the online price, for every kind of token. */
export const BATCH_PRICE_FACTOR = 0.5;

type OnlinePrice = Omit<ModelPrice, 'batch'>;

/** The batch prices of an online price: each kind at {@link BATCH_PRICE_FACTOR}. */
function withBatch(price: OnlinePrice): ModelPrice {
  const half = (value: number) => value * BATCH_PRICE_FACTOR;
  return {
    ...price,
    batch: {
      input: half(price.input),
      output: half(price.output),
      cacheRead: half(price.cacheRead ?? price.input),
      cacheWrite: half(price.cacheWrite ?? price.input),
    },
  };
}

const ONLINE: Readonly<Record<string, OnlinePrice>> = {
  'claude-opus-4-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-opus-4-1': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-opus-4': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-sonnet-4-5': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-sonnet-4': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
  'gpt-5': { input: 1.25, output: 10, cacheRead: 0.125 },
  'gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cacheRead: 0.005 },
  'gpt-4.1': { input: 2, output: 8, cacheRead: 0.5 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cacheRead: 0.1 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4, cacheRead: 0.025 },
  'gpt-4o': { input: 2.5, output: 10, cacheRead: 1.25 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cacheRead: 0.075 },
};

/** List prices in USD per million tokens, online and batch; a dated model id matches its longest listed prefix. */
export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = Object.fromEntries(
  Object.entries(ONLINE).map(([model, price]) => [model, withBatch(price)]),
);

/** The price of a model: user prices by judge spec, then by model, then the defaults; longest prefix wins. */
export function priceFor(
  judge: string,
  model: string,
  prices: Readonly<Record<string, ModelPrice>> = {},
): ModelPrice | undefined {
  const direct = prices[judge] ?? prices[model];
  if (direct) return direct;
  for (const table of [prices, DEFAULT_PRICES]) {
    let best: string | undefined;
    for (const name of Object.keys(table))
      if (model.startsWith(name) && (best === undefined || name.length > best.length)) best = name;
    if (best !== undefined) return table[best];
  }
  return undefined;
}

/** USD for token counts, online or batch (a batch kind the price leaves out: half its online price). */
export function costOfUsage(usage: TokenUsage, price: ModelPrice, batch: boolean): number {
  const cacheRead = price.cacheRead ?? price.input;
  const cacheWrite = price.cacheWrite ?? price.input;
  const rate = batch
    ? {
        input: price.batch?.input ?? price.input * BATCH_PRICE_FACTOR,
        output: price.batch?.output ?? price.output * BATCH_PRICE_FACTOR,
        cacheRead: price.batch?.cacheRead ?? cacheRead * BATCH_PRICE_FACTOR,
        cacheWrite: price.batch?.cacheWrite ?? cacheWrite * BATCH_PRICE_FACTOR,
      }
    : { input: price.input, output: price.output, cacheRead, cacheWrite };
  return (
    (usage.inputTokens * rate.input +
      usage.outputTokens * rate.output +
      usage.cacheReadTokens * rate.cacheRead +
      usage.cacheWriteTokens * rate.cacheWrite) /
    1_000_000
  );
}
