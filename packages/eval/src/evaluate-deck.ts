import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type AudienceWeightInput,
  audienceWeightSchema,
  type Correctness,
  createScratchDir,
  type Deck,
  hashBytes,
  hashFile,
  InputError,
  type ProbeInput,
  type ProbeScore,
  probeSchema,
  removeScratchDir,
  ValidationError,
} from '@xsb/core';
import { formatDeckText, readDeck } from '@xsb/decks';
import { computeMetrics } from '@xsb/metrics';
import type { z } from 'zod';
import { createEvalJudge, type EvalJudge } from './eval-judge';
import { type RenderSlides, scoreReuseKeyOf } from './evaluate-job';
import { imageInputRefusal, judgeInputModeFor, type SlideImage } from './evaluation-work-list';
import type { JudgeInputMode } from './probe-judgment';
import { renderSlidesWithDecks } from './render-slides-with-decks';
import {
  evaluationSettingsFor,
  type ModelClientSettings,
  type RunEvaluationOptions,
  runClientOptions,
} from './run-evaluation';
import { scoreDeckCorrectness } from './score-deck-correctness';
import { scoreProbesInBatches } from './score-probes-in-batches';

export interface EvaluateDeckInput
  extends ModelClientSettings,
    Pick<
      RunEvaluationOptions,
      | 'batchSize'
      | 'tauA'
      | 'claims'
      | 'imageModeWordsPerSlide'
      | 'concurrency'
      | 'judgeInput'
      | 'correctness'
    > {
  /** A deck file (PPTX, PDF or deck.json) or a deck already read with `readDeck`. */
  deck: string | Deck;
  /** The case's source context (stage 1's `source_context.md`): what the claims are checked against. */
  source: string;
  probes: readonly ProbeInput[];
  /** Weight rows of one or more audiences; one metrics record is computed per audience. */
  weights: readonly AudienceWeightInput[];
  /** `lexical` (offline, default), a model judge spec, or a judge built by the caller. */
  judge?: string | EvalJudge;
  /** Renders a deck file for image mode (default: `renderDeck` of @xsb/decks). */
  renderSlides?: RenderSlides;
  /** Where the judge's calls are logged (a usage ledger JSONL); none by default. */
  ledgerFile?: string;
}

export interface DeckEvaluation {
  judge: string;
  mode: JudgeInputMode;
  scores: ProbeScore[];
  /** Null when correctness is off (`correctness: false`). */
  correctness: Correctness | null;
  /** Stage 6 per audience of `weights`, in the order the audiences first appear. */
  metrics: ReturnType<typeof computeMetrics>[];
}

/**
 * Stages 5 and 6 for one deck held in memory: the same batches, prompts, rules and join as `xsb eval`,
 * without a data folder. Its working files live in a scratch folder removed before it returns.
 */
export async function evaluateDeck(input: EvaluateDeckInput): Promise<DeckEvaluation> {
  const probes = parseAll(input.probes, probeSchema, 'probes');
  const weights = parseAll(input.weights, audienceWeightSchema, 'weights');
  const settings = evaluationSettingsFor(input);
  const judge =
    typeof input.judge === 'object'
      ? input.judge
      : createEvalJudge(input.judge ?? 'lexical', runClientOptions(input, input.ledgerFile ?? ''));
  const refusal = imageInputRefusal(settings.judgeInput, judge);
  if (refusal !== null) throw new InputError(refusal, { code: 'judge_cannot_read_images' });
  const { deck, deckSha256 } = await deckOf(input.deck);
  const deckText = formatDeckText(deck);
  const scratch = await createScratchDir('xsb-evaluate-deck-');
  try {
    const { mode } = judgeInputModeFor(deck, settings, judge);
    const slideImages = mode === 'image' ? await renderedSlides(input, join(scratch, 'slides')) : [];
    const answerability = await scoreProbesInBatches({
      judge,
      request: { mode, deck, deckText, slideImages, sourceContext: input.source },
      probes,
      reuseKey: scoreReuseKeyOf(
        judge,
        mode,
        { deckSha256, probesSha256: hashBytes(JSON.stringify(probes)) },
        settings.batchSize,
      ),
      concurrency: settings.concurrency,
      finalFile: join(scratch, 'probe_scores.jsonl'),
      partialFile: join(scratch, 'probe_scores.partial.jsonl'),
      force: true,
    });
    const correctness =
      settings.correctness === false
        ? null
        : (
            await scoreDeckCorrectness({
              deck,
              deckText,
              deckSha256,
              sourceText: input.source,
              sourceSha256: hashBytes(input.source),
              judge,
              settings: settings.claims,
              cacheDir: scratch,
              force: true,
            })
          ).record;
    const audiences = [...new Set(weights.map((row) => row.audience))];
    const metrics = audiences.map((audience) =>
      computeMetrics({
        audience,
        probes,
        weights,
        scores: answerability.scores,
        slideCount: deck.slide_count,
        visibleWordCount: deck.visible_word_count,
        correctness: correctness?.correctness ?? null,
        ...(correctness?.null_reason ? { correctnessNullReason: correctness.null_reason } : {}),
        tauA: settings.tauA,
      }),
    );
    return { judge: judge.id, mode, scores: answerability.scores, correctness, metrics };
  } finally {
    await removeScratchDir(scratch);
  }
}

/** Each row through its schema (defaults filled in); a bad row is a ValidationError naming e.g. `probes[2].question`. */
function parseAll<S extends z.ZodType>(rows: readonly unknown[], schema: S, name: string): z.output<S>[] {
  return rows.map((row, index) => {
    const parsed = schema.safeParse(row);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0]!;
    const path = [name, index, ...issue.path].map((part) =>
      typeof part === 'number' ? `[${part}]` : `.${String(part)}`,
    );
    throw new ValidationError(issue.message, { field: path.join('').slice(1) });
  });
}

async function deckOf(deck: string | Deck): Promise<{ deck: Deck; deckSha256: string }> {
  if (typeof deck !== 'string') return { deck, deckSha256: hashBytes(JSON.stringify(deck)) };
  return { deck: await readDeck(deck), deckSha256: await hashFile(deck) };
}

async function renderedSlides(input: EvaluateDeckInput, outDir: string): Promise<SlideImage[]> {
  if (typeof input.deck !== 'string')
    throw new InputError(
      'this deck must be judged from rendered slides (too few visible words, or judge input "image"): pass it as a file, not a deck record',
    );
  const rendered = await (input.renderSlides ?? renderSlidesWithDecks)(input.deck, outDir);
  return Promise.all(
    rendered.map(async (image) => ({
      index: image.index,
      mediaType: image.mediaType,
      data: await readFile(image.file),
    })),
  );
}
