import { type ModelPrice, stopsTheRun, validateRecord } from '@xsb/core';
import {
  type CompletionRequest,
  cacheKeyFor,
  costOfUsage,
  createTokenCounter,
  DEFAULT_PRICES_AS_OF,
  DiskCache,
  estimateTokens,
  parseJudgeSpec,
  priceFor,
  providerBaseUrl,
  type TokenCounter,
} from '@xsb/llm';
import { MIN_CACHEABLE_TOKENS, PromptCacheModel } from './prompt-cache-model';
import { type CostPlan, type CostPlanRow, costPlanSchema } from './schemas/cost-plan';

/** Everything a plan needs to know about the judge and the client settings the run would use. */
export interface PlanContext {
  /** The judge spec of the run (`anthropic:<model>`, `openai:<model>`, `replay:…`, `record:…`, `lexical`). */
  judge: string;
  /** Where keys and base URLs are read (the base URL keys the disk cache). */
  env?: Record<string, string | undefined>;
  /** The disk cache the run would read (config `cacheDir`); answers found there cost nothing. */
  cacheDir?: string;
  noCache?: boolean;
  refresh?: boolean;
  /** Config `prices` over the default table. */
  prices?: Record<string, ModelPrice>;
  /** Count input tokens with the provider's own endpoint (needs the key) instead of the estimator. */
  exact?: boolean;
  /** Token-count requests in flight with `exact` (default 8). */
  exactConcurrency?: number;
  /** Shortest cacheable prefix (default 1,024 tokens, both providers). */
  minCacheTokens?: number;
}

/** One call a stage would make. */
export interface PlannedCall {
  stage: string;
  request: CompletionRequest;
  /** The estimated answer tokens: the work list's `decision.outputTokens` (each stage owns its estimate). */
  outputTokens: number;
  /** Set when the call (or its prompt) rests on an assumption about earlier answers: the row is estimated. */
  assumption?: string;
}

interface RowTotals {
  stage: string;
  calls: number;
  cachedCalls: number;
  reusedCalls: number;
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  assumptions: Set<string>;
  inputAssumptions: Set<string>;
  counted: number;
  estimated: number;
}

const ESTIMATOR = {
  name: 'bytes/4',
  description:
    "xsb's estimateTokens: UTF-8 bytes / 4 of the system prompt, every text part and the response schema; 1,600 tokens per image; PDF bytes / 100",
};

/**
 * Collects the calls of a plan, stage by stage, without keeping any request: each call is costed
 * when it is added (disk-cache lookup, tokens, prompt-cache effect), so a plan of 100,000 calls holds
 * only its counters. Calls must be added in the order the run sends them (the prompt-cache model
 * depends on it).
 */
export class CostPlanBuilder {
  readonly provider: string;
  readonly model: string | null;
  private readonly rows = new Map<string, RowTotals>();
  private readonly notes = new Set<string>();
  private readonly cache: DiskCache | undefined;
  private readonly seenKeys = new Set<string>();
  private readonly promptCache: PromptCacheModel;
  private readonly baseUrl: string | undefined;
  private counter: TokenCounter | undefined;
  private counting: Array<Promise<void>> = [];
  private readonly countLimit: number;
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly context: PlanContext) {
    const spec = parseJudgeSpec(context.judge);
    this.provider = spec.kind;
    this.model = spec.kind === 'anthropic' || spec.kind === 'openai' ? spec.model : null;
    this.baseUrl = providerBaseUrl(context.judge, context.env ?? process.env);
    this.cache =
      this.model !== null && context.cacheDir && !context.noCache && !context.refresh
        ? new DiskCache(context.cacheDir)
        : undefined;
    this.promptCache = new PromptCacheModel(this.provider, context.minCacheTokens ?? MIN_CACHEABLE_TOKENS);
    this.countLimit = Math.max(1, context.exactConcurrency ?? 8);
    if (context.exact) {
      if (this.model === null)
        this.notes.add(
          `exact counting counts tokens at a provider; judge ${context.judge} has none, so nothing is counted`,
        );
      else this.counter = createTokenCounter(context.judge, { env: context.env ?? process.env });
    }
    if (spec.kind === 'lexical')
      this.notes.add(
        'judge lexical is offline: no model, no tokens, no cost; calls are the zero-token ledger lines its steps write',
      );
    if (spec.kind === 'replay' || spec.kind === 'record')
      this.notes.add(
        `judge ${spec.kind}: answers come from the store and bill nothing; calls are store lookups (record: prompts the store lacks are appended to its pending file and those calls fail)`,
      );
  }

  /** Whether calls of this judge reach a provider (and bill tokens). */
  get billed(): boolean {
    return this.model !== null;
  }

  private row(stage: string): RowTotals {
    let row = this.rows.get(stage);
    if (!row) {
      row = {
        stage,
        calls: 0,
        cachedCalls: 0,
        reusedCalls: 0,
        inputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        outputTokens: 0,
        assumptions: new Set(),
        inputAssumptions: new Set(),
        counted: 0,
        estimated: 0,
      };
      this.rows.set(stage, row);
    }
    return row;
  }

  note(text: string): void {
    this.notes.add(text);
  }

  /** Declares a stage (so it shows with zeros) and, optionally, an assumption it rests on. */
  stage(stage: string, assumption?: string): void {
    const row = this.row(stage);
    if (assumption) row.assumptions.add(assumption);
  }

  /**
   * An assumption about inputs on disk that the run the plan stands for would make anew (a probe bank
   * another judge made): the row stays `exact` for the command as typed, and is shown as estimated.
   */
  assumeInput(stage: string, assumption: string): void {
    this.row(stage).inputAssumptions.add(assumption);
  }

  /** Work a finished artifact already holds: no call and no ledger line. */
  reuse(stage: string, calls: number): void {
    this.row(stage).reusedCalls += calls;
  }

  /** Adds one call in sending order. */
  async add(call: PlannedCall): Promise<void> {
    const row = this.row(call.stage);
    if (call.assumption) row.assumptions.add(call.assumption);
    if (!this.billed) {
      row.calls += 1;
      return;
    }
    if (await this.answeredByDiskCache(call.request)) {
      row.cachedCalls += 1;
      return;
    }
    row.calls += 1;
    const estimate = estimateTokens(call.request).inputTokens;
    const model = call.request.model ?? (this.model as string);
    const effect = this.promptCache.apply(call.request, model, estimate);
    row.outputTokens += call.outputTokens;
    const account = (input: number, exact: boolean) => {
      const scale = estimate > 0 ? input / estimate : 1;
      const read = Math.round(effect.cacheReadTokens * scale);
      row.inputTokens += input;
      row.cacheReadTokens += read;
      row.cacheWriteTokens += Math.min(Math.round(effect.cacheWriteTokens * scale), input - read);
      if (exact) row.counted += 1;
      else row.estimated += 1;
    };
    if (!this.counter) {
      account(estimate, false);
      return;
    }
    await this.slot();
    const counter = this.counter;
    this.counting.push(
      counter
        .count(call.request)
        .then(
          (tokens) => account(tokens, true),
          (error: unknown) => {
            if (stopsTheRun(error)) throw error;
            this.counter = undefined;
            this.notes.add(
              `the provider's token count failed (${(error as Error).message}); this call and all later ones use the bytes/4 estimator`,
            );
            account(estimate, false);
          },
        )
        .finally(() => this.release()),
    );
  }

  private slot(): Promise<void> {
    if (this.inFlight < this.countLimit) {
      this.inFlight += 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => this.waiting.push(resolve)).then(() => {
      this.inFlight += 1;
    });
  }

  private release(): void {
    this.inFlight -= 1;
    this.waiting.shift()?.();
  }

  /**
   * Whether the run's disk cache answers the request: an entry on disk, or the same request earlier
   * in this plan (its answer will be cached by then). Replay, record and lexical judges have no cache.
   */
  private async answeredByDiskCache(request: CompletionRequest): Promise<boolean> {
    if (!this.cache || this.baseUrl === undefined || this.model === null) return false;
    const key = cacheKeyFor({
      provider: this.provider,
      model: request.model ?? this.model,
      baseUrl: this.baseUrl,
      request,
    });
    if (this.seenKeys.has(key)) return true;
    this.seenKeys.add(key);
    return (await this.cache.get(key)) !== undefined;
  }

  /** The price the plan costs calls at, and where it came from. */
  private price(): { price: ModelPrice | undefined; source: 'default' | 'config' | 'none' } {
    if (this.model === null) return { price: undefined, source: 'none' };
    const configured = this.context.prices ?? {};
    const price = priceFor(this.context.judge, this.model, configured);
    if (!price) return { price, source: 'none' };
    return { price, source: priceFor(this.context.judge, this.model, {}) === price ? 'default' : 'config' };
  }

  /** Waits for outstanding token counts and renders the plan (validated against `costPlanSchema`). */
  async finish(meta: {
    command: string;
    run: string | null;
    ledgerLinesBefore: number;
    createdAt?: Date;
  }): Promise<CostPlan> {
    await Promise.all(this.counting);
    this.counting = [];
    const { price, source } = this.price();
    if (this.model !== null && !price)
      this.notes.add(
        `no price for model ${this.model}: costs are null; add it under "prices" in the xsb config (USD per million tokens)`,
      );
    const rows = [...this.rows.values()].map((row) => this.renderRow(row, price));
    const totals = sumRows(rows);
    const counted = [...this.rows.values()].reduce((sum, row) => sum + row.counted, 0);
    const estimator =
      counted > 0 && this.counter !== undefined
        ? {
            name: this.counter.endpoint,
            description: `input tokens counted by the provider (${this.counter.endpoint}); prompt-cache shares scaled from the bytes/4 estimate of each prefix`,
          }
        : counted > 0
          ? { name: 'mixed', description: `provider counts, then ${ESTIMATOR.description}` }
          : ESTIMATOR;
    const plan: CostPlan = {
      format: 'xsb-cost-plan/1',
      created_at: (meta.createdAt ?? new Date()).toISOString(),
      command: meta.command,
      run: meta.run,
      ledger_lines_before: meta.ledgerLinesBefore,
      judge: this.context.judge,
      estimator,
      prices: {
        as_of: DEFAULT_PRICES_AS_OF,
        source,
        models: price && this.model !== null ? { [this.model]: price } : {},
      },
      prompt_cache: {
        min_tokens: this.context.minCacheTokens ?? MIN_CACHEABLE_TOKENS,
        description:
          this.provider === 'anthropic'
            ? 'Anthropic cache_control at each marked prefix: written by the first call, read by the later ones'
            : this.provider === 'openai'
              ? 'OpenAI automatic prefix caching: a marked prefix sent before is read (in steps of 128 tokens), no writes'
              : 'none (no provider)',
      },
      rows,
      totals,
      notes: [...this.notes],
    };
    return validateRecord(costPlanSchema, plan);
  }

  private renderRow(row: RowTotals, price: ModelPrice | undefined): CostPlanRow {
    const uncached = row.inputTokens - row.cacheReadTokens - row.cacheWriteTokens;
    const cachedUsage = {
      inputTokens: uncached,
      outputTokens: row.outputTokens,
      cacheReadTokens: row.cacheReadTokens,
      cacheWriteTokens: row.cacheWriteTokens,
    };
    const round = (usd: number) => Math.round(usd * 1e6) / 1e6;
    const cost = price
      ? {
          online: round(
            costOfUsage(
              { ...cachedUsage, inputTokens: row.inputTokens, cacheReadTokens: 0, cacheWriteTokens: 0 },
              price,
              false,
            ),
          ),
          online_cached: round(costOfUsage(cachedUsage, price, false)),
          batch: round(costOfUsage(cachedUsage, price, true)),
        }
      : this.billed
        ? { online: null, online_cached: null, batch: null }
        : { online: 0, online_cached: 0, batch: 0 };
    return {
      stage: row.stage,
      judge: this.context.judge,
      provider: this.provider,
      model: this.model,
      calls: row.calls,
      cached_calls: row.cachedCalls,
      reused_calls: row.reusedCalls,
      input_tokens: row.inputTokens,
      cache_read_tokens: row.cacheReadTokens,
      cache_write_tokens: row.cacheWriteTokens,
      output_tokens: row.outputTokens,
      cost_usd: cost,
      exact: row.assumptions.size === 0,
      assumptions: [...row.assumptions],
      input_assumptions: [...row.inputAssumptions],
      token_source:
        row.counted > 0 && row.estimated > 0 ? 'mixed' : row.counted > 0 ? 'count_endpoint' : 'estimator',
    };
  }
}

/** Totals over rows; a cost is null when any billed row's is. */
export function sumRows(rows: readonly CostPlanRow[]): CostPlan['totals'] {
  const totals: CostPlan['totals'] = {
    calls: 0,
    cached_calls: 0,
    reused_calls: 0,
    input_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    output_tokens: 0,
    cost_usd: { online: 0, online_cached: 0, batch: 0 },
  };
  for (const row of rows) {
    for (const key of [
      'calls',
      'cached_calls',
      'reused_calls',
      'input_tokens',
      'cache_read_tokens',
      'cache_write_tokens',
      'output_tokens',
    ] as const)
      totals[key] += row[key];
    for (const key of ['online', 'online_cached', 'batch'] as const) {
      const value = row.cost_usd[key];
      const sum = totals.cost_usd[key];
      totals.cost_usd[key] = value === null || sum === null ? null : Math.round((sum + value) * 1e6) / 1e6;
    }
  }
  return totals;
}
