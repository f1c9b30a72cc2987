import { isXsbError, type RunLayout } from '@xsb/core';
import { isOfflineJudge } from '@xsb/llm';
import {
  buildProbeGenerationRequest,
  chunkSourceText,
  findFinishedProbeBank,
  LlmProbeGenerator,
  PROBE_DEFAULTS,
  probeBankSettings,
} from '@xsb/probes';
import { type PrepareSourceContextOptions, prepareSourceContext, type SourceCase } from '@xsb/sources';
import type { CostPlanBuilder } from './cost-plan-builder';
import { cappedOutput, OUTPUT_TOKEN_ESTIMATES } from './output-token-estimates';
import { planningClient } from './plan-weights';

export const PROBES_STAGE = 'probes';

export interface PlanProbesOptions {
  layout: RunLayout;
  cases: readonly SourceCase[];
  k?: number;
  sourceChars?: number;
  chunkChars?: number;
  chunkOverlap?: number;
  force?: boolean;
  /** As `xsb probes` passes them to stage 1 (PDF parser, env, MinerU cache). */
  sourceOptions?: Omit<PrepareSourceContextOptions, 'maxChars' | 'force' | 'persist'>;
}

/** What a case's bank will be made from: its source text and chunk count (for later stand-ins). */
export interface PlannedCaseSource {
  caseId: string;
  text: string;
  chunks: number;
  /** True when the plan makes the bank anew: later stages cannot use the bank on disk. */
  regenerated: boolean;
}

/**
 * Stage 2's calls: per case, the source context stage 1 would give (read when current, otherwise
 * extracted without writing anything), its chunks, and k generation requests per chunk rendered with
 * `buildProbeGenerationRequest`; a finished bank of the same settings is reused. The offline
 * `lexical` generator makes no call. A PDF whose context would be made by MinerU is extracted with
 * unpdf for the plan (no MinerU request), and the row says so. Exact: the first request of each
 * generation (an answer without a probe list gets one corrective follow-up, not planned).
 */
export async function planProbes(
  builder: CostPlanBuilder,
  options: PlanProbesOptions,
): Promise<PlannedCaseSource[]> {
  const k = options.k ?? PROBE_DEFAULTS.k;
  const chunking = {
    source_chars: options.sourceChars ?? PROBE_DEFAULTS.sourceChars,
    chunk_chars: options.chunkChars ?? PROBE_DEFAULTS.chunkChars,
    chunk_overlap: options.chunkOverlap ?? PROBE_DEFAULTS.chunkOverlap,
  };
  const offline = isOfflineJudge(builder.context.judge);
  const generator = new LlmProbeGenerator(planningClient(builder.context.judge));
  const sources: PlannedCaseSource[] = [];
  if (!offline) builder.stage(PROBES_STAGE);
  for (const sourceCase of options.cases) {
    const mineru = sourceCase.sourceType === 'pdf' && options.sourceOptions?.pdfParser === 'mineru';
    let prepared: Awaited<ReturnType<typeof prepareSourceContext>>;
    try {
      // As `xsb probes`: the retained source of `xsb sources` is kept unless --source-chars is given.
      prepared = await prepareSourceContext(options.layout, sourceCase, {
        keepPdfParser: true,
        keepSourceSelection: true,
        ...options.sourceOptions,
        ...(mineru ? { pdfParser: 'unpdf' as const } : {}),
        maxChars: options.sourceChars,
        persist: false,
      });
    } catch (error) {
      if (!isXsbError(error)) throw error;
      builder.note(`probes ${sourceCase.caseId}: ${error.message}; the case fails, no call`);
      continue;
    }
    const { text, pages, furniture } = prepared.extracted;
    const chunks = chunkSourceText(text, chunking.chunk_chars, chunking.chunk_overlap);
    const source = { caseId: sourceCase.caseId, text, chunks: chunks.length, regenerated: false };
    sources.push(source);
    if (offline) continue;
    const settings = probeBankSettings(
      sourceCase,
      generator,
      k,
      { ...chunking, source_chars: prepared.extracted.maxChars },
      prepared.extracted,
    );
    if (!options.force && (await findFinishedProbeBank(options.layout, sourceCase.caseId, settings))) {
      builder.reuse(PROBES_STAGE, chunks.length * k);
      continue;
    }
    source.regenerated = true;
    const assumption =
      mineru && !prepared.skipped
        ? 'PDF text extracted with unpdf for the plan; the MinerU text the run will use may be longer or shorter'
        : undefined;
    for (const chunk of chunks)
      for (let generationIndex = 0; generationIndex < k; generationIndex += 1) {
        const request = buildProbeGenerationRequest({
          caseId: sourceCase.caseId,
          scene: sourceCase.metadata.scene,
          title: sourceCase.metadata.title,
          chunkText: chunk.text,
          chunkBody: text.slice(chunk.start, chunk.end),
          chunkStart: chunk.start,
          chunkIndex: chunk.index,
          chunkCount: chunks.length,
          generationIndex,
          k,
          pages,
          furniture,
        });
        await builder.add({
          stage: PROBES_STAGE,
          request,
          outputTokens: cappedOutput(OUTPUT_TOKEN_ESTIMATES.probeGeneration, request.maxTokens),
          ...(assumption ? { assumption } : {}),
        });
      }
  }
  return sources;
}
