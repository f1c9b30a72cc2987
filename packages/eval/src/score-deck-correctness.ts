import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Correctness,
  correctnessSchema,
  type Deck,
  hashCanonicalJson,
  isXsbError,
  type ProgressReporter,
  readJson,
  type VerifiedClaim,
  writeJson,
} from '@xsb/core';
import { aggregateCorrectness, CORRECTNESS_FORMULA } from './aggregate-correctness';
import { CLAIM_EXTRACTION_SYSTEM } from './claim-extraction-prompt';
import { CLAIM_VERIFICATION_SYSTEM } from './claim-verification-prompt';
import type { EvalJudge } from './eval-judge';
import { applySourceContact } from './source-contact';
import { SourceRetriever } from './source-retriever';

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
  /**
   * One tick for the claim extraction, then the verification batches once the claims are known
   * (`grow`, then a tick each); a cached result skips the extraction's one expected call.
   */
  progress?: ProgressReporter;
  progressNote?: string;
}

/**
 * Claim-level correctness (spec 000 stage 5): extract claims (slide kept), retrieve BM25 source
 * snippets per claim, verify in batches, aggregate; null when no claim touches the source
 * (applySourceContact). Served from `<cacheDir>/<key>.json` when present.
 */
export async function scoreDeckCorrectness(
  input: ScoreCorrectnessInput,
): Promise<{ record: Correctness; fromCache: boolean }> {
  const key = correctnessCacheKey({
    deckSha256: input.deckSha256,
    sourceSha256: input.sourceSha256,
    judgeId: input.judge.id,
    settings: input.settings,
    ...(input.repeat !== undefined ? { repeat: input.repeat } : {}),
  });
  const cacheFile = join(input.cacheDir, `${key}.json`);
  // A judge whose answers come from term overlap alone (lexical) adds no evidence of contact with the
  // source through its labels; a model's supported/contradicted verdict does (see sourceContactMiss).
  const trustLabels = input.judge.deterministic !== true;
  if (!input.force && existsSync(cacheFile)) {
    try {
      const record = applySourceContact(await readJson(cacheFile, correctnessSchema), trustLabels);
      input.progress?.skip?.(1, input.progressNote);
      return { record, fromCache: true };
    } catch (error) {
      if (!isXsbError(error)) throw error;
      input.log?.(`correctness cache entry unreadable, recomputing: ${error.message}`);
    }
  }
  const claims = await input.judge.extractClaims({
    deck: input.deck,
    deckText: input.deckText,
    maxClaims: input.settings.max_claims,
  });
  input.progress?.tick(1, input.progressNote);
  const retriever = new SourceRetriever(input.sourceText, { chunkChars: input.settings.chunk_chars });
  const items = claims.map((claim) => ({
    claim,
    snippets: retriever.search(claim.text, input.settings.snippets_per_claim),
  }));
  const batches: Array<typeof items> = [];
  for (let i = 0; i < items.length; i += input.settings.verify_batch_size)
    batches.push(items.slice(i, i + input.settings.verify_batch_size));
  input.progress?.grow?.(batches.length);
  const answered = await Promise.all(
    batches.map(async (batch) => {
      const answer = await input.judge.verifyClaims(batch);
      input.progress?.tick(1, input.progressNote);
      return answer;
    }),
  );
  const verified: VerifiedClaim[] = [];
  answered.forEach((answer, b) => {
    if (answer.unknown.length > 0)
      input.log?.(`claim verification returned unknown claim ids (ignored): ${answer.unknown.join(', ')}`);
    answer.verdicts.forEach((verdict, i) => {
      const item = batches[b]![i]!;
      verified.push({
        claim_id: item.claim.claim_id,
        slide_index: item.claim.slide_index,
        text: item.claim.text,
        label: verdict.label,
        rationale: verdict.rationale,
        snippets: item.snippets,
      });
    });
  });
  const count = (label: VerifiedClaim['label']) => verified.filter((claim) => claim.label === label).length;
  const counts = {
    supported: count('supported'),
    unsupported: count('unsupported'),
    contradicted: count('contradicted'),
  };
  const correctness = aggregateCorrectness(counts);
  const record: Correctness = applySourceContact(
    {
      correctness,
      ...(correctness === null ? { null_reason: 'the deck has no checkable claim' } : {}),
      formula: CORRECTNESS_FORMULA,
      judge: input.judge.id,
      deck_sha256: input.deckSha256,
      source_sha256: input.sourceSha256,
      cache_key: key,
      settings: { ...input.settings },
      claim_count: verified.length,
      supported_count: counts.supported,
      contradicted_count: counts.contradicted,
      unsupported_count: counts.unsupported,
      claims: verified,
    },
    trustLabels,
  );
  await writeJson(cacheFile, correctnessSchema, record);
  return { record, fromCache: false };
}
