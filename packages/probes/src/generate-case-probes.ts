import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  compareCodePoints,
  describeError,
  executeWorkList,
  mapWithConcurrency,
  type ProbeGenerationStatus,
  probeGenerationStatusSchema,
  probeSchema,
  type RunLayout,
  type StageEventListener,
  stopsTheRun,
  type UnitContext,
  withDirectoryLock,
  writeFileAtomic,
  writeJson,
  writeJsonlAtomic,
} from '@xsb/core';
import type { DiscoveredSources, SourceCase } from '@xsb/sources';
import type { GenerationOutput, ProbeGenerator } from './generated-probe';
import { assembleProbeBank, orderCandidates, screenGeneratedProbes } from './probe-bank-steps';
import {
  findFinishedProbeBank,
  type ProbeBankOptions,
  type ProbesUnit,
  probesWorkList,
  type ReadyCaseProbes,
  type UnreadableCaseProbes,
} from './probes-work-list';

export interface GenerateProbesOptions extends ProbeBankOptions {
  generator: ProbeGenerator;
  /**
   * Calls in flight: cases at once (default 1) and generations of a case at once (default 4); with
   * `--batch` both are the batch capacity, so one batch collects every case's generations.
   */
  concurrency?: number;
  /** Stage events: one unit per case. */
  onEvent?: StageEventListener;
}

export interface CaseProbesResult {
  caseId: string;
  status: 'complete' | 'failed' | 'skipped';
  /** The status file as written (or as found, when skipped). */
  generationStatus: ProbeGenerationStatus | undefined;
  error?: string;
}

/**
 * Stage 2 over every discovered case: the work list (`probesWorkList`) run through the generator,
 * one row per case (a case whose source folder could not be read is a failed row), in case order.
 * A case that fails is recorded and the others go on; an error that would fail every case alike (a
 * missing key, a refused login, MinerU without an endpoint) stops the stage and is thrown.
 */
export async function generateRunProbes(
  layout: RunLayout,
  discovered: DiscoveredSources,
  options: GenerateProbesOptions,
): Promise<CaseProbesResult[]> {
  const units = await probesWorkList(layout, discovered.cases, options.generator, options);
  const failedStatus = new Map<string, ProbeGenerationStatus>();
  const outcomes = await executeWorkList(units, {
    run: (unit, context) =>
      runProbesUnit(layout, unit, options, context, (status) => failedStatus.set(unit.id, status)),
    concurrency: options.concurrency ?? 1,
    unitName: 'cases',
    stopsStage: stopsTheRun,
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
  });
  const failed = (caseId: string, error: string): CaseProbesResult => {
    return { caseId, status: 'failed', generationStatus: failedStatus.get(caseId), error };
  };
  return [
    ...outcomes.map((outcome) => outcome.result ?? failed(outcome.unit.id, describeError(outcome.error))),
    ...discovered.failures.map((failure) => failed(failure.caseId, failure.error.message)),
  ].sort((a, b) => compareCodePoints(a.caseId, b.caseId));
}

/** Stage 2 for one case (README: Pipeline of one case). */
export async function generateCaseProbes(
  layout: RunLayout,
  sourceCase: SourceCase,
  options: GenerateProbesOptions,
): Promise<CaseProbesResult> {
  const [result] = await generateRunProbes(layout, { cases: [sourceCase], failures: [] }, options);
  return result!;
}

/** Decides one case under its folder's lock: reuse, or generate and write the bank (a failure writes a failed status). */
function runProbesUnit(
  layout: RunLayout,
  unit: ProbesUnit,
  options: GenerateProbesOptions,
  context: UnitContext,
  recordFailure: (status: ProbeGenerationStatus) => void,
): Promise<CaseProbesResult> {
  const caseId = unit.id;
  const input = unit.input;
  const judge = options.generator.id;
  // One writer per case folder: two runs on the same data folder wait for each other.
  return withDirectoryLock(
    layout.probesDir(caseId),
    async (): Promise<CaseProbesResult> => {
      if ('error' in input) {
        recordFailure(await writeFailedStatus(layout, input, judge, 0, input.error));
        throw input.error;
      }
      // Another process may have finished the bank while this one waited for the lock.
      const existing =
        input.existing ??
        (options.force ? undefined : await findFinishedProbeBank(layout, caseId, input.settings));
      if (existing) return { caseId, status: 'skipped', generationStatus: existing };
      let outputs: GenerationOutput[];
      try {
        outputs = await generateAll(layout, input, options, context);
      } catch (error) {
        recordFailure(await writeFailedStatus(layout, input, judge, input.chunks.length, error));
        throw error;
      }
      const generationStatus = await writeProbeBank(layout, input, judge, outputs);
      return { caseId, status: 'complete', generationStatus };
    },
    { timeoutMs: 600_000 },
  );
}

/** Every generation of the case, each exchange (or the failure) stored under `raw/chunk_XX/`. */
async function generateAll(
  layout: RunLayout,
  input: ReadyCaseProbes,
  { generator, concurrency = 4 }: GenerateProbesOptions,
  context: UnitContext,
): Promise<GenerationOutput[]> {
  const caseId = input.sourceCase.caseId;
  await rm(join(layout.probesDir(caseId), 'raw'), { recursive: true, force: true });
  return mapWithConcurrency(input.generations, concurrency, async (generation) => {
    const chunk = input.chunks[generation.chunkIndex]!;
    const rawFile = join(
      layout.rawChunkDir(caseId, chunk.index),
      `generation_${String(generation.generationIndex).padStart(2, '0')}.json`,
    );
    const rawHeader = {
      case_id: caseId,
      judge: generator.id,
      chunk: { index: chunk.index, count: input.chunks.length, start: chunk.start, end: chunk.end },
      generation_index: generation.generationIndex,
      k: input.k,
    };
    const store = (record: object) => writeFileAtomic(rawFile, `${JSON.stringify(record, null, 2)}\n`);
    try {
      const output = await generator.generate(generation, context.callMade);
      await store({ ...rawHeader, exchanges: output.exchanges });
      return output;
    } catch (error) {
      const exchanges = (error as { details?: { exchanges?: unknown } }).details?.exchanges ?? [];
      await store({ ...rawHeader, exchanges, error: describeError(error) });
      throw error;
    }
  });
}

/** The pure steps over the generations, then the bank and last its status (which marks it finished). */
async function writeProbeBank(
  layout: RunLayout,
  input: ReadyCaseProbes,
  judge: string,
  outputs: readonly GenerationOutput[],
): Promise<ProbeGenerationStatus> {
  const { sourceCase, prepared, chunks } = input;
  const extracted = prepared.extracted;
  const screened = screenGeneratedProbes(
    input.generations.map((generation, index) => ({ ...generation, output: outputs[index]! })),
    extracted,
  );
  const { bank, duplicates } = assembleProbeBank(orderCandidates(screened.candidates), {
    caseId: sourceCase.caseId,
    scene: sourceCase.metadata.scene,
    generator: judge,
    chunkCount: chunks.length,
  });
  await writeJsonlAtomic(layout.probesFile(sourceCase.caseId), probeSchema, bank);
  const { filteredByReason } = screened;
  const templateLanguages = bank.map((probe) => probe.metadata.template_language);
  return writeJson(layout.probeStatusFile(sourceCase.caseId), probeGenerationStatusSchema, {
    case_id: sourceCase.caseId,
    status: 'complete',
    judge,
    k: input.k,
    counts: {
      generated: screened.generated,
      filtered: Object.values(filteredByReason).reduce((sum, count) => sum + count, 0),
      ungrounded: screened.ungrounded,
      duplicates,
      final: bank.length,
      malformed: screened.malformed,
      filtered_by_reason: filteredByReason,
    },
    chunking: { ...input.chunking, chunk_count: chunks.length },
    errors: [],
    source_sha256: extracted.sourceSha256,
    parser: extracted.parser,
    truncated: extracted.truncated,
    page_furniture_lines: extracted.furniture.length,
    source_language: input.sourceLanguage ?? null,
    template_languages: [...new Set(templateLanguages.filter((value) => value !== undefined))].sort(),
    settings: input.settings,
  });
}

/** A failed case: no bank (a stale one is removed) and a status saying why. */
async function writeFailedStatus(
  layout: RunLayout,
  input: ReadyCaseProbes | UnreadableCaseProbes,
  judge: string,
  chunkCount: number,
  error: unknown,
): Promise<ProbeGenerationStatus> {
  const caseId = input.sourceCase.caseId;
  await rm(layout.probesFile(caseId), { force: true });
  return writeJson(layout.probeStatusFile(caseId), probeGenerationStatusSchema, {
    case_id: caseId,
    status: 'failed',
    judge,
    k: input.k,
    counts: { generated: 0, filtered: 0, ungrounded: 0, duplicates: 0, final: 0 },
    chunking: { ...input.chunking, chunk_count: chunkCount },
    errors: [describeError(error)],
  });
}
