import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type CallUsage, type ClaimLabel, type Deck, type Probe, validateRecord } from '@xsb/core';
import {
  type CreateLlmClientOptions,
  completeJson,
  createJudge,
  describeJudge,
  type Judge,
  type JudgeCapabilities,
  type JudgeDescription,
  type JudgeKind,
  repeatClient,
  usageLedgerEntrySchema,
} from '@xsb/llm';
import {
  type AnswerabilityPromptInput,
  answerabilityAnswerSchema,
  buildAnswerabilityRequest,
  reconcileJudgments,
} from './answerability-prompt';
import {
  buildClaimExtractionRequest,
  claimExtractionAnswerSchema,
  claimsFromExtraction,
} from './claim-extraction-prompt';
import {
  buildClaimVerificationRequest,
  claimVerificationAnswerSchema,
  reconcileVerdicts,
} from './claim-verification-prompt';
import { type DeckClaim, extractClaimsLexically } from './extract-claims-lexically';
import { judgeAnswerabilityLexically } from './judge-answerability-lexically';
import type { ProbeJudgment } from './probe-judgment';
import type { RetrievedSnippet } from './source-retriever';
import { verifyClaimLexically } from './verify-claims-lexically';

type CallMade = (usage: CallUsage) => void;

export const EVAL_STAGES = {
  answerability: 'eval.answerability',
  claimExtraction: 'eval.claims',
  claimVerification: 'eval.verification',
} as const;

export interface AnswerabilityBatchResult {
  judgments: ProbeJudgment[];
  /** Probe ids the judge left out (filled as uncovered, zero confidence). */
  missing: string[];
  /** Ids the judge returned that were not asked for (ignored). */
  unknown: string[];
}

export interface ClaimVerdict {
  claim_id: string;
  label: ClaimLabel;
  rationale: string;
}

/**
 * The three judged steps of stage 5 on one judge value (`@xsb/llm`'s `Judge`): its id, kind and
 * capabilities decide the work (`judge.kind`, `judge.capabilities.readsImages`), never its id string.
 */
export interface EvalJudge extends JudgeDescription {
  /** `callMade` hears each model call's usage (a stage's `call-made` event); the offline rules make none. */
  judgeAnswerability(
    input: AnswerabilityPromptInput & { deck: Deck },
    callMade?: CallMade,
  ): Promise<AnswerabilityBatchResult>;
  extractClaims(
    input: { deck: Deck; deckText: string; maxClaims: number },
    callMade?: CallMade,
  ): Promise<DeckClaim[]>;
  verifyClaims(
    items: ReadonlyArray<{ claim: DeckClaim; snippets: readonly RetrievedSnippet[] }>,
    callMade?: CallMade,
  ): Promise<{ verdicts: ClaimVerdict[]; unknown: string[] }>;
  /**
   * The same judge asked again as test–retest repeat `repeat` (≥ 1): a model judge's calls carry the
   * repeat index, so each repeat is its own response-cache entry. A judge without it cannot be re-asked.
   */
  withRepeat?(repeat: number): EvalJudge;
  /** True for a judge whose answers cannot vary between asks (`lexical`): its flip rate is 0 by construction. */
  readonly deterministic?: boolean;
}

/**
 * The offline judge `lexical`. It makes no model call, but each judged batch still appends a
 * zero-token line to the usage ledger, so "a re-run made no judge call" is checkable for it too.
 */
export class LexicalEvalJudge implements EvalJudge {
  readonly id = 'lexical';
  readonly kind: JudgeKind = 'offline';
  readonly capabilities: JudgeCapabilities = describeJudge('lexical').capabilities;
  readonly deterministic = true;

  constructor(private readonly ledgerFile?: string) {}

  /** Re-run as it is: the same algorithm on the same input (its ledger lines count the repeat's work). */
  withRepeat(): EvalJudge {
    return this;
  }

  private async record(stage: string): Promise<void> {
    if (!this.ledgerFile) return;
    const entry = validateRecord(usageLedgerEntrySchema, {
      time: new Date().toISOString(),
      stage,
      judge: 'lexical',
      provider: 'lexical',
      model: 'lexical',
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      latencyMs: 0,
      retries: 0,
      cacheHit: false,
      ok: true,
    });
    await mkdir(dirname(this.ledgerFile), { recursive: true });
    await appendFile(this.ledgerFile, `${JSON.stringify(entry)}\n`);
  }

  async judgeAnswerability(
    input: AnswerabilityPromptInput & { deck: Deck },
  ): Promise<AnswerabilityBatchResult> {
    await this.record(EVAL_STAGES.answerability);
    return { judgments: judgeAnswerabilityLexically(input.deck, input.probes), missing: [], unknown: [] };
  }

  async extractClaims(input: { deck: Deck; maxClaims: number }): Promise<DeckClaim[]> {
    await this.record(EVAL_STAGES.claimExtraction);
    return extractClaimsLexically(input.deck, input.maxClaims);
  }

  async verifyClaims(
    items: ReadonlyArray<{ claim: DeckClaim; snippets: readonly RetrievedSnippet[] }>,
  ): Promise<{ verdicts: ClaimVerdict[]; unknown: string[] }> {
    await this.record(EVAL_STAGES.claimVerification);
    return {
      verdicts: items.map(({ claim, snippets }) => ({
        claim_id: claim.claim_id,
        ...verifyClaimLexically(claim.text, snippets),
      })),
      unknown: [],
    };
  }
}

/** A model judge (anthropic:, openai:, replay:, record:) through @xsb/llm; prompts live beside their parsers. */
export class LlmEvalJudge implements EvalJudge {
  readonly id: string;
  readonly kind: JudgeKind;
  readonly capabilities: JudgeCapabilities;
  private readonly client: Extract<Judge, { kind: 'model' | 'replay' }>['client'];

  constructor(judge: Extract<Judge, { kind: 'model' | 'replay' }>) {
    this.id = judge.id;
    this.kind = judge.kind;
    this.capabilities = judge.capabilities;
    this.client = judge.client;
  }

  withRepeat(repeat: number): EvalJudge {
    return new LlmEvalJudge({
      id: this.id,
      kind: this.kind as 'model',
      capabilities: this.capabilities,
      client: repeatClient(this.client, repeat),
    });
  }

  async judgeAnswerability(
    input: AnswerabilityPromptInput,
    callMade?: CallMade,
  ): Promise<AnswerabilityBatchResult> {
    const { value } = await completeJson(
      this.client,
      buildAnswerabilityRequest(input),
      answerabilityAnswerSchema,
      {
        stage: EVAL_STAGES.answerability,
        ...(callMade ? { callMade } : {}),
      },
    );
    return reconcileJudgments(
      value,
      input.probes.map((probe: Probe) => probe.probe_id),
    );
  }

  async extractClaims(
    input: { deck: Deck; deckText: string; maxClaims: number },
    callMade?: CallMade,
  ): Promise<DeckClaim[]> {
    const { value } = await completeJson(
      this.client,
      buildClaimExtractionRequest(input.deckText, input.maxClaims),
      claimExtractionAnswerSchema,
      { stage: EVAL_STAGES.claimExtraction, ...(callMade ? { callMade } : {}) },
    );
    return claimsFromExtraction(value, input.deck.slide_count, input.maxClaims);
  }

  async verifyClaims(
    items: ReadonlyArray<{ claim: DeckClaim; snippets: readonly RetrievedSnippet[] }>,
    callMade?: CallMade,
  ): Promise<{ verdicts: ClaimVerdict[]; unknown: string[] }> {
    const { value } = await completeJson(
      this.client,
      buildClaimVerificationRequest(items),
      claimVerificationAnswerSchema,
      { stage: EVAL_STAGES.claimVerification, ...(callMade ? { callMade } : {}) },
    );
    return reconcileVerdicts(
      value,
      items.map((item) => item.claim.claim_id),
    );
  }
}

/**
 * What the judge `createEvalJudge(spec)` would build can do, without building it (no client, no key,
 * no store read): `describeJudge`'s capabilities.
 */
export function evalJudgeCapabilities(spec: string): JudgeCapabilities {
  return describeJudge(spec).capabilities;
}

/** The stage-5 steps of a judge value: the offline judge's lexical rules, or its model's prompts. */
export function evalJudgeFrom(judge: Judge, ledgerFile?: string): EvalJudge {
  return judge.kind === 'offline' ? new LexicalEvalJudge(ledgerFile) : new LlmEvalJudge(judge);
}

/** `lexical` → the offline judge; any other spec → a model client (ConfigError for a missing key). */
export function createEvalJudge(spec: string, options: CreateLlmClientOptions = {}): EvalJudge {
  return evalJudgeFrom(createJudge(spec, { stage: 'eval', ...options }), options.ledgerFile);
}
