import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import {
  executeWorkList,
  hashCanonicalJson,
  hashFile,
  isXsbError,
  type RunLayout,
  recordedInputHash,
  type StageEventListener,
  type UnitOutcome,
  UsageError,
  writeJson,
} from '@xsb/core';
import { readDeck, SlideRenderStore } from '@xsb/decks';
import {
  discoverDeckRows,
  type EvaluationJob,
  evaluationDirOf,
  expandEvaluationJobs,
  type JobFilters,
} from '@xsb/eval';
import { findReferenceDeck } from '@xsb/sources';
import { cachedDeckDesign } from './cached-deck-design';
import {
  DESIGN_FILE,
  type DesignJobInput,
  type DesignUnit,
  designWorkList,
  REFERENCE_FILE,
} from './design-work-list';
import { DESIGN_METRICS_VERSION, designInputHash } from './measure-deck-design';
import { compareToReference } from './reference/compare-to-reference';
import { DEFAULT_RENDER_WIDTH_PX, type RenderSlidesOptions } from './render-slide-images';
import { type DesignRecord, designRecordSchema } from './schemas/design-record';
import { type ReferenceRecord, referenceRecordSchema } from './schemas/reference-record';

export interface RunDesignOptions extends Omit<RenderSlidesOptions, 'keepRendersDir'> {
  layout: RunLayout;
  run: string;
  filters?: JobFilters;
  /** Recompute even where the files are current. */
  force?: boolean;
  onEvent?: StageEventListener;
}

export interface DesignRow {
  id: string;
  dir: string | null;
  status: 'done' | 'reused' | 'failed';
  reference: boolean;
  error: string | null;
}

async function jobInput(
  layout: RunLayout,
  run: string,
  job: EvaluationJob,
  widthPx: number,
): Promise<DesignJobInput> {
  const dir = evaluationDirOf(layout, run, job);
  const deckSha256 = await hashFile(job.deckFile);
  const referenceFile = findReferenceDeck(layout.sourceDir(job.caseLabel));
  const referenceSha = referenceFile ? await hashFile(referenceFile) : null;
  return {
    job,
    dir,
    deckSha256,
    designHash: designInputHash(deckSha256, widthPx),
    reference:
      referenceFile && referenceSha
        ? {
            file: referenceFile,
            sha256: referenceSha,
            hash: hashCanonicalJson({
              deck: deckSha256,
              reference: referenceSha,
              version: DESIGN_METRICS_VERSION,
            }),
          }
        : null,
    existing: {
      design: await recordedInputHash(join(dir, DESIGN_FILE)),
      reference: await recordedInputHash(join(dir, REFERENCE_FILE)),
    },
  };
}

const slideTexts = async (file: string) => (await readDeck(file)).slides.map((slide) => slide.visible_text);

/**
 * `xsb design --data D --run R`: design.json into every evaluation job of the run, and reference.json where
 * the case has a reference deck. One render per deck, whatever the number of audiences it is evaluated for.
 */
export async function runDesign(options: RunDesignOptions): Promise<DesignRow[]> {
  const { layout, run } = options;
  if (!existsSync(layout.decksRoot(run)))
    throw new UsageError(`run "${run}" has no decks (${layout.decksRoot(run)} does not exist)`, {
      code: 'missing_folder',
    });
  const widthPx = options.widthPx ?? DEFAULT_RENDER_WIDTH_PX;
  const { rows, failures } = await discoverDeckRows(layout, run);
  const expanded = await expandEvaluationJobs(layout, rows, options.filters);
  const failed: DesignRow[] = [...failures, ...expanded.failures].map((failure) => ({
    id: failure.where,
    dir: null,
    status: 'failed',
    reference: false,
    error: failure.error.message,
  }));
  const inputs: DesignJobInput[] = [];
  for (const job of expanded.jobs) {
    try {
      inputs.push(await jobInput(layout, run, job, widthPx));
    } catch (error) {
      if (!isXsbError(error) || error.kind !== 'input') throw error;
      failed.push({
        id: `${job.system}/${job.condition}/${job.audience}/${job.caseLabel}`,
        dir: evaluationDirOf(layout, run, job),
        status: 'failed',
        reference: false,
        error: error.message,
      });
    }
  }
  const {
    layout: _layout,
    run: _run,
    filters: _filters,
    force: _force,
    onEvent: _onEvent,
    ...renderOptions
  } = options;
  const renderStore = new SlideRenderStore(layout.slideRendersDir(run));
  const designs = new Map<string, Promise<DesignRecord>>();
  const designOf = (input: DesignJobInput) => {
    if (!designs.has(input.deckSha256))
      designs.set(
        input.deckSha256,
        cachedDeckDesign(input.job.deckFile, {
          ...renderOptions,
          widthPx,
          renderStore,
          force: options.force === true,
        }),
      );
    return designs.get(input.deckSha256)!;
  };
  const outcomes = await executeWorkList(designWorkList(inputs, options), {
    unitName: 'decks',
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    run: async (unit) => {
      if (unit.decision.kind === 'reuse') return;
      const { input } = unit;
      // A changed reference alone does not render the deck again.
      if (options.force || input.existing.design !== input.designHash)
        await writeJson(join(input.dir, DESIGN_FILE), designRecordSchema, {
          ...(await designOf(input)),
          deck_file: relative(input.dir, input.job.deckFile),
        });
      await writeReferenceFile(input);
    },
  });
  return [...failed, ...outcomes.map(rowOf)];
}

async function writeReferenceFile(input: DesignJobInput): Promise<void> {
  const referenceFile = join(input.dir, REFERENCE_FILE);
  if (!input.reference) {
    await rm(referenceFile, { force: true });
    return;
  }
  const comparison = compareToReference(
    await slideTexts(input.job.deckFile),
    await slideTexts(input.reference.file),
  );
  const record: ReferenceRecord = {
    deck_file: relative(input.dir, input.job.deckFile),
    deck_sha256: input.deckSha256,
    reference_file: relative(input.dir, input.reference.file),
    reference_sha256: input.reference.sha256,
    input_hash: input.reference.hash,
    ...comparison,
  };
  await writeJson(referenceFile, referenceRecordSchema, record);
}

function rowOf(outcome: UnitOutcome<DesignUnit, void>): DesignRow {
  return {
    id: outcome.unit.id,
    dir: outcome.unit.input.dir,
    status: outcome.status,
    reference: outcome.unit.input.reference !== null,
    error:
      outcome.error === undefined
        ? null
        : outcome.error instanceof Error
          ? outcome.error.message
          : String(outcome.error),
  };
}
