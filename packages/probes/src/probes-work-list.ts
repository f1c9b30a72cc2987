/**
 * Stage 2 as a work list (docs/architecture.md): one unit per case, decided by reuse (a finished bank
 * of the same settings), by the generator's rule (the offline lexical generator), or by its model
 * calls (chunks × k generation requests). `generateRunProbes` runs these units and `xsb plan`
 * (`planProbes`) prices the same ones.
 */
import { existsSync } from 'node:fs';
import {
  canonicalJson,
  hashBytes,
  hashCanonicalJson,
  type ProbeGenerationStatus,
  probeGenerationStatusSchema,
  type RunLayout,
  readJson,
  type WorkDecision,
  type WorkUnit,
} from '@xsb/core';
import type { CompletionRequest } from '@xsb/llm';
import {
  detectSourceLanguage,
  type ExtractedSource,
  type PreparedSourceContext,
  type PrepareSourceContextOptions,
  prepareSourceContext,
  type SourceCase,
} from '@xsb/sources';
import { chunkSourceText, type SourceChunk } from './chunk-source-text';
import type { GenerationInput, ProbeGenerator } from './generated-probe';

export const PROBES_STAGE = 'probes';

/** Spec 000's large-context defaults, and k = 3 samples per chunk. */
export const PROBE_DEFAULTS = { k: 3, sourceChars: 1_000_000, chunkChars: 0, chunkOverlap: 0 } as const;

/** A typical generation answer (15–30 probes asked, ~22 of ~90 tokens): what a plan charges before any answer. */
export const PROBE_GENERATION_OUTPUT_TOKENS = 2000;

/**
 * Bumped when a change to filters, grounding, dedup or ids would change a bank made from the same
 * answers. 3: probes whose evidence lies only in page furniture are filtered (`page_furniture`). 4:
 * URL, DOI, ISBN, credit-line and bibliography-entry filters, and element-number blanks as reference-only.
 */
const PROBE_BANK_FORMAT = 4;

export interface ProbeBankOptions {
  k?: number;
  sourceChars?: number;
  chunkChars?: number;
  chunkOverlap?: number;
  /** Redo the bank even when the finished one matches the source and settings. */
  force?: boolean;
  /** Passed to `prepareSourceContext` (PDF parser, env, MinerU cache; `persist: false` for a plan). */
  sourceOptions?: Omit<PrepareSourceContextOptions, 'maxChars' | 'force'>;
}

export interface ProbeChunking {
  source_chars: number;
  chunk_chars: number;
  chunk_overlap: number;
}

interface CaseBase {
  sourceCase: SourceCase;
  k: number;
  chunking: ProbeChunking;
}

/** A case whose bank can be made: its source, settings and generations (none when reused). */
export interface ReadyCaseProbes extends CaseBase {
  prepared: PreparedSourceContext;
  settings: Record<string, unknown>;
  chunks: SourceChunk[];
  generations: GenerationInput[];
  sourceLanguage?: string | undefined;
  /** The finished bank's status when the unit is reused. */
  existing?: ProbeGenerationStatus;
}

/** A case whose source cannot be read: it fails without a call. */
export interface UnreadableCaseProbes extends CaseBase {
  error: unknown;
}

export type CaseProbesInput = ReadyCaseProbes | UnreadableCaseProbes;
export type ProbesUnit = WorkUnit<CompletionRequest, CaseProbesInput>;

/**
 * The work of stage 2 over `cases`, in their order. Reads each case's source context through stage 1
 * (`prepareSourceContext`: a current context is used as it is; a stale one is extracted anew, and
 * written unless `sourceOptions.persist` is false) and the finished bank's status; makes no judge call.
 */
export async function probesWorkList(
  layout: RunLayout,
  cases: readonly SourceCase[],
  generator: Pick<ProbeGenerator, 'id' | 'fingerprint' | 'requestFor'>,
  options: ProbeBankOptions = {},
): Promise<ProbesUnit[]> {
  const units: ProbesUnit[] = [];
  for (const sourceCase of cases) units.push(await caseProbesUnit(layout, sourceCase, generator, options));
  return units;
}

async function caseProbesUnit(
  layout: RunLayout,
  sourceCase: SourceCase,
  generator: Pick<ProbeGenerator, 'id' | 'fingerprint' | 'requestFor'>,
  options: ProbeBankOptions,
): Promise<ProbesUnit> {
  const caseId = sourceCase.caseId;
  const k = options.k ?? PROBE_DEFAULTS.k;
  const chunking: ProbeChunking = {
    source_chars: options.sourceChars ?? PROBE_DEFAULTS.sourceChars,
    chunk_chars: options.chunkChars ?? PROBE_DEFAULTS.chunkChars,
    chunk_overlap: options.chunkOverlap ?? PROBE_DEFAULTS.chunkOverlap,
  };
  const unit = { stage: PROBES_STAGE, id: caseId, reads: [sourceCase.sourceFile] };
  let prepared: PreparedSourceContext;
  try {
    // Stage 1 chose the PDF parser and the retained source (max chars, pages): a current context is
    // used as it is, and only a --source-chars / --pages given to this stage re-decides them.
    prepared = await prepareSourceContext(layout, sourceCase, {
      keepPdfParser: true,
      keepSourceSelection: true,
      ...options.sourceOptions,
      maxChars: options.sourceChars,
    });
  } catch (error) {
    const rule = 'unreadable source: the case fails without a call';
    return {
      ...unit,
      reuseKey: '',
      decision: { kind: 'rule', rule },
      input: { sourceCase, k, chunking, error },
    };
  }
  chunking.source_chars = prepared.extracted.maxChars;
  const settings = probeBankSettings(sourceCase, generator, k, chunking, prepared.extracted);
  const chunks = chunkSourceText(prepared.extracted.text, chunking.chunk_chars, chunking.chunk_overlap);
  const ready = { sourceCase, k, chunking, prepared, settings, chunks };
  const reuseKey = hashCanonicalJson(settings);
  const existing = options.force ? undefined : await findFinishedProbeBank(layout, caseId, settings);
  if (existing) {
    const decision = { kind: 'reuse', artifact: layout.probesFile(caseId) } as const;
    return { ...unit, reuseKey, decision, input: { ...ready, existing, generations: [] } };
  }
  // Template-phrased questions (the lexical generator) follow the source's language.
  const sourceLanguage = await detectSourceLanguage(prepared.extracted.text);
  const generations = generationInputs(sourceCase, prepared.extracted, chunks, k, sourceLanguage);
  const decision = generationDecision(generator, generations);
  return { ...unit, reuseKey, decision, input: { ...ready, generations, sourceLanguage } };
}

/** What the generator is asked, chunk by chunk and sample by sample (the order the run sends them). */
export function generationInputs(
  sourceCase: SourceCase,
  extracted: Pick<ExtractedSource, 'text' | 'pages' | 'furniture'>,
  chunks: readonly SourceChunk[],
  k: number,
  sourceLanguage: string | undefined,
): GenerationInput[] {
  return chunks.flatMap((chunk) =>
    Array.from({ length: k }, (_, generationIndex) => ({
      caseId: sourceCase.caseId,
      scene: sourceCase.metadata.scene,
      title: sourceCase.metadata.title,
      chunkText: chunk.text,
      chunkBody: extracted.text.slice(chunk.start, chunk.end),
      chunkStart: chunk.start,
      chunkIndex: chunk.index,
      chunkCount: chunks.length,
      generationIndex,
      k,
      pages: extracted.pages,
      furniture: extracted.furniture,
      sourceLanguage,
    })),
  );
}

/** A model generator's first request of each generation, or the rule of a generator that calls no model. */
function generationDecision(
  generator: Pick<ProbeGenerator, 'id' | 'requestFor'>,
  generations: readonly GenerationInput[],
): WorkDecision<CompletionRequest> {
  if (!generator.requestFor) return { kind: 'rule', rule: `${generator.id} probe generation` };
  const requests = generations.map((input) => generator.requestFor!(input));
  const outputTokens = Math.min(PROBE_GENERATION_OUTPUT_TOKENS, requests[0]?.maxTokens ?? Infinity);
  return { kind: 'call', requests, outputTokens };
}

/**
 * What decides a finished bank: format, generator and its prompt, k, chunking, and the extracted
 * source (its hashes, the page furniture, the case's scene and title). A bank made under other
 * settings is generated again.
 */
export function probeBankSettings(
  sourceCase: SourceCase,
  generator: Pick<ProbeGenerator, 'id' | 'fingerprint'>,
  k: number,
  chunking: ProbeChunking,
  extracted: Pick<ExtractedSource, 'text' | 'furniture' | 'sourceSha256'>,
): Record<string, unknown> {
  return {
    bank_format: PROBE_BANK_FORMAT,
    judge: generator.id,
    generator_fingerprint: generator.fingerprint,
    k,
    ...chunking,
    source_sha256: extracted.sourceSha256,
    text_sha256: hashBytes(extracted.text),
    // Marking page furniture changes what may be asked without changing the text.
    page_furniture_sha256: hashCanonicalJson(extracted.furniture),
    scene: sourceCase.metadata.scene,
    title: sourceCase.metadata.title,
  };
}

/** The status of a finished bank of the case made under exactly these settings, or undefined. */
export async function findFinishedProbeBank(
  layout: RunLayout,
  caseId: string,
  settings: Record<string, unknown>,
): Promise<ProbeGenerationStatus | undefined> {
  const statusFile = layout.probeStatusFile(caseId);
  if (!existsSync(statusFile) || !existsSync(layout.probesFile(caseId))) return undefined;
  // An unreadable status means the bank is not known to be finished: it is regenerated.
  const status = await readJson(statusFile, probeGenerationStatusSchema).catch(() => undefined);
  const finished =
    status?.status === 'complete' && canonicalJson(status.settings) === canonicalJson(settings);
  return finished ? status : undefined;
}
