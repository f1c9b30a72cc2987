/**
 * Stage 5 as a work list (docs/architecture.md): per job, the answerability batches, the claim
 * extraction and the verification batches, each decided by reuse, by the offline judge's lexical
 * rule, or by model calls whose first requests are listed. `evaluateJob` runs these units and
 * `xsb plan` (`planEval`) prices the same ones, so the two cannot disagree on a call.
 */
import type { Deck, Probe, ProbeScore, WorkDecision, WorkUnit } from '@xsb/core';
import type { CompletionRequest, JudgeDescription } from '@xsb/llm';
import { type AnswerabilityPromptInput, buildAnswerabilityRequest } from './answerability-prompt';
import { buildClaimExtractionRequest } from './claim-extraction-prompt';
import { buildClaimVerificationRequest } from './claim-verification-prompt';
import { EVAL_STAGES } from './eval-judge';
import type { DeckClaim } from './extract-claims-lexically';
import type { JudgeInputMode } from './probe-judgment';
import type { ClaimSettings } from './score-deck-correctness';
import { type RetrievedSnippet, SourceRetriever } from './source-retriever';

/**
 * Typical answer tokens per item of each step (what a plan charges before any answer exists): stated
 * guesses from the JSON each prompt asks for, capped at the request's `maxTokens`.
 */
export const EVAL_OUTPUT_TOKENS = {
  /** Covered, a quoted answer, the slide, a confidence. */
  answerabilityPerProbe: 60,
  /** `{"slide", "claim"}`. */
  claimPerClaim: 30,
  /** `{"claim_id", "label", "rationale": one sentence}`. */
  verificationPerClaim: 45,
} as const;

/** The lexical rule each step of the offline judge applies (README "Offline judge"). */
const LEXICAL_RULES = {
  [EVAL_STAGES.answerability]: 'lexical answerability (key-token recall, numbers near probe terms)',
  [EVAL_STAGES.claimExtraction]: 'lexical claims (sentences with a number or 4 content words)',
  [EVAL_STAGES.claimVerification]: 'lexical verification (term recall against BM25 snippets)',
} as const;

export type SlideImage = NonNullable<AnswerabilityPromptInput['slideImages']>[number];
export type VerificationItem = { claim: DeckClaim; snippets: RetrievedSnippet[] };

export type AnswerabilityUnit = WorkUnit<CompletionRequest, { index: number; probes: readonly Probe[] }>;
export type ClaimExtractionUnit = WorkUnit<CompletionRequest, { maxClaims: number }>;
export type VerificationUnit = WorkUnit<CompletionRequest, { index: number; items: VerificationItem[] }>;

/** What a judge reads in the settings of a run: `image` input from a judge that reads no images is refused. */
export function imageInputRefusal(
  judgeInput: JudgeInputMode | undefined,
  judge: Pick<JudgeDescription, 'id' | 'capabilities'>,
): string | null {
  if (judgeInput !== 'image' || judge.capabilities.readsImages) return null;
  return `the settings ask for rendered-slide input (judge input "image"), but the ${judge.id} judge cannot read images; it is not judged from the text instead`;
}

/**
 * The one image-mode rule: a sparse deck (fewer than `wordsPerSlide` visible words a slide) or
 * `image` input is judged from rendered slides when the judge reads images; otherwise from its text.
 */
export function judgeInputModeFor(
  deck: Pick<Deck, 'visible_word_count' | 'slide_count'>,
  settings: { imageModeWordsPerSlide: number; judgeInput?: JudgeInputMode },
  judge: Pick<JudgeDescription, 'capabilities'>,
): { mode: JudgeInputMode; sparse: boolean } {
  const sparse = deck.visible_word_count < settings.imageModeWordsPerSlide * Math.max(deck.slide_count, 1);
  const wantsImages = sparse || settings.judgeInput === 'image';
  return { mode: wantsImages && judge.capabilities.readsImages ? 'image' : 'text', sparse };
}

function capped(tokens: number, request: CompletionRequest): number {
  return Math.round(request.maxTokens === undefined ? tokens : Math.min(tokens, request.maxTokens));
}

/** How a unit that is not reused is decided: the offline judge's rule, or the model call of `request`. */
function decide(
  stage: keyof typeof LEXICAL_RULES,
  judge: Pick<JudgeDescription, 'kind'>,
  request: () => CompletionRequest,
  perItem: number,
  items: number,
  assumption?: string,
): WorkDecision<CompletionRequest> {
  if (judge.kind === 'offline') return { kind: 'rule', rule: LEXICAL_RULES[stage] };
  const built = request();
  return {
    kind: 'call',
    requests: [built],
    outputTokens: capped(perItem * items, built),
    ...(assumption ? { assumption } : {}),
  };
}

export interface AnswerabilityListInput {
  /** The job's name, the prefix of unit ids (`system/condition/audience/case`). */
  job: string;
  reads: readonly string[];
  /** Everything of the request but a batch's probes. */
  request: Omit<AnswerabilityPromptInput, 'probes'>;
  probes: readonly Probe[];
  batchSize: number;
  /** Score rows that may be reused (same reuse key); a batch all of whose probes are here is reused. */
  known: ReadonlyMap<string, ProbeScore>;
  /** The key score rows carry (`ScoreReuseKey`), as a string. */
  reuseKey: string;
  /** Where the reused rows are. */
  artifact: string;
  assumption?: string;
}

/** The fixed answerability batches (`probes[i·B, (i+1)·B)` in bank order), one unit each. */
export function answerabilityUnits(
  input: AnswerabilityListInput,
  judge: Pick<JudgeDescription, 'kind'>,
): AnswerabilityUnit[] {
  const units: AnswerabilityUnit[] = [];
  for (let start = 0; start < input.probes.length; start += input.batchSize) {
    const probes = input.probes.slice(start, start + input.batchSize);
    const index = units.length;
    const reused = probes.every((probe) => input.known.has(probe.probe_id));
    units.push({
      stage: EVAL_STAGES.answerability,
      id: `${input.job}#batch-${index}`,
      reads: input.reads,
      reuseKey: input.reuseKey,
      decision: reused
        ? { kind: 'reuse', artifact: input.artifact }
        : decide(
            EVAL_STAGES.answerability,
            judge,
            () => buildAnswerabilityRequest({ ...input.request, probes }),
            EVAL_OUTPUT_TOKENS.answerabilityPerProbe,
            probes.length,
            input.assumption,
          ),
      input: { index, probes },
    });
  }
  return units;
}

/** The claim extraction of a deck: reused when the correctness cache holds the deck's result. */
export function claimExtractionUnit(
  input: {
    job: string;
    reads: readonly string[];
    deckText: string;
    settings: ClaimSettings;
    cacheKey: string;
    /** The cache entry, when it exists (then the unit is reused). */
    cached: string | null;
    assumption?: string;
  },
  judge: Pick<JudgeDescription, 'kind'>,
): ClaimExtractionUnit {
  const maxClaims = input.settings.max_claims;
  return {
    stage: EVAL_STAGES.claimExtraction,
    id: `${input.job}#claims`,
    reads: input.reads,
    reuseKey: input.cacheKey,
    decision:
      input.cached !== null
        ? { kind: 'reuse', artifact: input.cached }
        : decide(
            EVAL_STAGES.claimExtraction,
            judge,
            () => buildClaimExtractionRequest(input.deckText, maxClaims),
            EVAL_OUTPUT_TOKENS.claimPerClaim,
            maxClaims,
            input.assumption,
          ),
    input: { maxClaims },
  };
}

/** Each claim with its top BM25 snippets of the source (the retrieval step of the verification). */
export function verificationItems(
  claims: readonly DeckClaim[],
  sourceText: string,
  settings: ClaimSettings,
): VerificationItem[] {
  const retriever = new SourceRetriever(sourceText, { chunkChars: settings.chunk_chars });
  return claims.map((claim) => ({
    claim,
    snippets: retriever.search(claim.text, settings.snippets_per_claim),
  }));
}

/** The verification batches of a deck's claims (`verify_batch_size` each), one unit each. */
export function verificationUnits(
  input: {
    job: string;
    reads: readonly string[];
    items: readonly VerificationItem[];
    settings: ClaimSettings;
    cacheKey: string;
    /** Set when the claims are a plan's stand-in for the ones the model will extract. */
    assumption?: string;
  },
  judge: Pick<JudgeDescription, 'kind'>,
): VerificationUnit[] {
  const size = input.settings.verify_batch_size;
  const units: VerificationUnit[] = [];
  for (let start = 0; start < input.items.length; start += size) {
    const items = input.items.slice(start, start + size);
    const index = units.length;
    units.push({
      stage: EVAL_STAGES.claimVerification,
      id: `${input.job}#verify-${index}`,
      reads: input.reads,
      reuseKey: input.cacheKey,
      decision: decide(
        EVAL_STAGES.claimVerification,
        judge,
        () => buildClaimVerificationRequest(items),
        EVAL_OUTPUT_TOKENS.verificationPerClaim,
        items.length,
        input.assumption,
      ),
      input: { index, items },
    });
  }
  return units;
}
