import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Correctness,
  correctnessSchema,
  type Deck,
  executeWorkList,
  hashCanonicalJson,
  isXsbError,
  type ProgressReporter,
  readJson,
  type StageEventListener,
  type VerifiedClaim,
  writeJson,
} from '@xsb/core';
import { aggregateCorrectness, CORRECTNESS_FORMULA } from './aggregate-correctness';
import { CLAIM_EXTRACTION_SYSTEM } from './claim-extraction-prompt';
import { CLAIM_VERIFICATION_SYSTEM } from './claim-verification-prompt';
import type { ClaimVerdict, EvalJudge } from './eval-judge';
import {
  claimExtractionUnit,
  type VerificationItem,
  verificationItems,
  verificationUnits,
} from './evaluation-work-list';
import { progressTicks } from './score-probes-in-batches';
import { applySourceContact } from './source-contact';

/** The claim settings that, with deck, source and judge, decide a correctness result. */
export interface ClaimSettings {
  max_claims: number;
  snippets_per_claim: number;
  chunk_chars: number;
  verify_batch_size: number;
}

export const DEFAULT_CLAIM_SETTINGS: ClaimSettings = {
  max_claims: 40,
  snippets_per_claim: 3,
  chunk_chars: 600,
  verify_batch_size: 12,
};

/**
 * The correctness cache key: deck hash, source-context hash, judge id, claim settings and the
 * prompts (a changed prompt must not be answered from an old entry). Never the audience: an
 * audience-agnostic deck evaluated for three audiences is verified once.
 */
export function correctnessCacheKey(input: {
  deckSha256: string;
  sourceSha256: string;
  judgeId: string;
  settings: ClaimSettings;
  /** Test–retest repeat (≥ 1): its own entry; 0 or absent keeps the ordinary key. */
  repeat?: number;
}): string {
  return hashCanonicalJson({
    deck_sha256: input.deckSha256,
    source_sha256: input.sourceSha256,
    judge: input.judgeId,
    settings: input.settings,
    prompts:
      input.judgeId === 'lexical'
        ? 'lexical'
        : hashCanonicalJson([CLAIM_EXTRACTION_SYSTEM, CLAIM_VERIFICATION_SYSTEM]),
    ...((input.repeat ?? 0) >= 1 ? { repeat: input.repeat } : {}),
  });
}

export interface ScoreCorrectnessInput {
  deck: Deck;
  deckText: string;
  deckSha256: string;
  sourceText: string;
  sourceSha256: string;
  judge: EvalJudge;
  settings: ClaimSettings;
  cacheDir: string;
  /** Recompute and overwrite the cache entry instead of reading it. */
  force?: boolean;
  /** Test–retest repeat (≥ 1): keyed apart from the ordinary ask (the judge must carry it too). */
  repeat?: number;
  log?: (line: string) => void;
  /** The job's name (the prefix of unit ids in events). */
  job?: string;
  /**
   * One tick for the claim extraction, then the verification batches once the claims are known
   * (`grow`, then a tick each); a cached result skips the extraction's one expected call.
   */
  progress?: ProgressReporter;
  progressNote?: string;
  onEvent?: StageEventListener;
}

/**
 * The cache entry of a deck's correctness, with the source-contact rule applied again (an entry
 * written before the rule gives the same null); null when absent or unreadable (then recomputed).
 */
export async function readCachedCorrectness(
  cacheFile: string,
  trustLabels: boolean,
  log?: (line: string) => void,
): Promise<Correctness | null> {
  if (!existsSync(cacheFile)) return null;
  try {
    return applySourceContact(await readJson(cacheFile, correctnessSchema), trustLabels);
  } catch (error) {
    if (!isXsbError(error)) throw error;
    log?.(`correctness cache entry unreadable, recomputing: ${error.message}`);
    return null;
  }
}

/** The verified claims of answered verification batches, in claim order; unknown ids are logged. */
function verifiedClaims(
  answered: ReadonlyArray<{ items: VerificationItem[]; verdicts: ClaimVerdict[]; unknown: string[] }>,
  log?: (line: string) => void,
): VerifiedClaim[] {
  return answered.flatMap(({ items, verdicts, unknown }) => {
    if (unknown.length > 0)
      log?.(`claim verification returned unknown claim ids (ignored): ${unknown.join(', ')}`);
    return verdicts.map((verdict, i) => {
      const item = items[i]!;
      return {
        claim_id: item.claim.claim_id,
        slide_index: item.claim.slide_index,
        text: item.claim.text,
        label: verdict.label,
        rationale: verdict.rationale,
        snippets: item.snippets,
      };
    });
  });
}

/** The correctness record of verified claims (aggregate, counts, then the source-contact rule). */
export function correctnessRecordOf(
  verified: VerifiedClaim[],
  identity: {
    judge: string;
    deckSha256: string;
    sourceSha256: string;
    cacheKey: string;
    settings: ClaimSettings;
  },
  trustLabels: boolean,
): Correctness {
  const count = (label: VerifiedClaim['label']) => verified.filter((claim) => claim.label === label).length;
  const counts = {
    supported: count('supported'),
    unsupported: count('unsupported'),
    contradicted: count('contradicted'),
  };
  const correctness = aggregateCorrectness(counts);
  return applySourceContact(
    {
      correctness,
      ...(correctness === null ? { null_reason: 'the deck has no checkable claim' } : {}),
      formula: CORRECTNESS_FORMULA,
      judge: identity.judge,
      deck_sha256: identity.deckSha256,
      source_sha256: identity.sourceSha256,
      cache_key: identity.cacheKey,
      settings: { ...identity.settings },
      claim_count: verified.length,
      supported_count: counts.supported,
      contradicted_count: counts.contradicted,
      unsupported_count: counts.unsupported,
      claims: verified,
    },
    trustLabels,
  );
}

/**
 * Claim-level correctness (spec 000 stage 5): extract claims (slide kept), retrieve BM25 source
 * snippets per claim, verify in batches, aggregate; null when no claim touches the source
 * (applySourceContact). Served from `<cacheDir>/<key>.json` when present. The extraction and the
 * verification batches are work units (`claimExtractionUnit`, `verificationUnits`), run through
 * `executeWorkList`; a failing batch fails the step once the batches in flight are done.
 */
export async function scoreDeckCorrectness(
  input: ScoreCorrectnessInput,
): Promise<{ record: Correctness; fromCache: boolean }> {
  const { judge, settings } = input;
  const key = correctnessCacheKey({
    deckSha256: input.deckSha256,
    sourceSha256: input.sourceSha256,
    judgeId: judge.id,
    settings,
    ...(input.repeat !== undefined ? { repeat: input.repeat } : {}),
  });
  const cacheFile = join(input.cacheDir, `${key}.json`);
  // A judge whose answers come from term overlap alone (lexical) adds no evidence of contact with the
  // source through its labels; a model's supported/contradicted verdict does (see sourceContactMiss).
  const trustLabels = judge.deterministic !== true;
  const cached = input.force ? null : await readCachedCorrectness(cacheFile, trustLabels, input.log);
  const job = input.job ?? '';
  const extraction = claimExtractionUnit(
    { job, reads: [], deckText: input.deckText, settings, cacheKey: key, cached: cached ? cacheFile : null },
    judge,
  );
  const events = progressTicks(input.progress, input.progressNote, input.onEvent);
  const [extracted] = await executeWorkList([extraction], {
    stopsStage: () => true,
    onEvent: events,
    run: async (unit, context) =>
      unit.decision.kind === 'reuse'
        ? []
        : judge.extractClaims(
            { deck: input.deck, deckText: input.deckText, maxClaims: unit.input.maxClaims },
            context.callMade,
          ),
  });
  if (cached) return { record: cached, fromCache: true };
  const items = verificationItems(extracted?.result ?? [], input.sourceText, settings);
  const units = verificationUnits({ job, reads: [], items, settings, cacheKey: key }, judge);
  input.progress?.grow?.(units.length);
  const answered = await executeWorkList(units, {
    concurrency: units.length,
    stopsStage: () => true,
    onEvent: events,
    run: async (unit, context) => ({
      items: unit.input.items,
      ...(await judge.verifyClaims(unit.input.items, context.callMade)),
    }),
  });
  const verified = verifiedClaims(
    answered.map((outcome) => outcome.result!),
    input.log,
  );
  const identity = {
    judge: judge.id,
    deckSha256: input.deckSha256,
    sourceSha256: input.sourceSha256,
    cacheKey: key,
    settings,
  };
  const record = correctnessRecordOf(verified, identity, trustLabels);
  await writeJson(cacheFile, correctnessSchema, record);
  return { record, fromCache: false };
}
