import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  canonicalJson,
  compareCodePoints,
  describeError,
  detectSourceLanguage,
  exitCodeFor,
  hashBytes,
  hashCanonicalJson,
  mapWithConcurrency,
  type Probe,
  type ProbeGenerationStatus,
  type ProgressReporter,
  probeGenerationStatusSchema,
  probeSchema,
  type RunLayout,
  readJson,
  withDirectoryLock,
  writeFileAtomic,
  writeJson,
  writeJsonlAtomic,
} from '@xsb/core';
import {
  type ExtractedSource,
  type PrepareSourceContextOptions,
  prepareSourceContext,
  type SourceCase,
} from '@xsb/sources';
import { chunkSourceText } from './chunk-source-text';
import { deduplicateProbes } from './deduplicate-probes';
import { FILTER_REASONS, type FilterReason, filterReasonFor } from './filter-probes';
import type { GeneratedProbe, GenerationInput, GenerationOutput, ProbeGenerator } from './generated-probe';
import { GroundingIndex } from './ground-evidence';
import { isPageFurnitureProbe } from './page-furniture-filter';

/** Spec 000's large-context defaults, and k = 3 samples per chunk. */
export const PROBE_DEFAULTS = { k: 3, sourceChars: 1_000_000, chunkChars: 0, chunkOverlap: 0 } as const;

/**
 * Bumped when a change to filters, grounding, dedup or ids would change a bank made from the same
 * answers. 3: probes whose evidence lies only in page furniture are filtered (`page_furniture`). 4:
 * URL, DOI, ISBN, credit-line and bibliography-entry filters, and element-number blanks as reference-only.
 */
const PROBE_BANK_FORMAT = 4;

export interface GenerateCaseProbesOptions {
  generator: ProbeGenerator;
  k?: number;
  sourceChars?: number;
  chunkChars?: number;
  chunkOverlap?: number;
  /** Redo the bank even when the finished one matches the source and settings. */
  force?: boolean;
  /** Generations run at once (each is one model request). Default 4. */
  concurrency?: number;
  /** Passed to `prepareSourceContext` (PDF parser, env, MinerU cache). */
  sourceOptions?: Omit<PrepareSourceContextOptions, 'maxChars' | 'force'>;
  /**
   * Grows by the case's generation calls (chunks × k) once the chunks are known, then ticks once per
   * call; a finished bank adds nothing.
   */
  progress?: ProgressReporter;
  progressNote?: string;
}

export interface CaseProbesResult {
  caseId: string;
  status: 'complete' | 'failed' | 'skipped';
  /** The status file as written (or as found, when skipped). */
  generationStatus: ProbeGenerationStatus | undefined;
  error?: string;
}

interface Candidate {
  probe: GeneratedProbe;
  chunkIndex: number;
  generationIndex: number;
  contentHash: string;
  firstOffset: number;
  evidenceOffsets: number[];
}

/**
 * Stage 2 for one case: source context (stage 1's `prepareSourceContext`), chunks, k generations per
 * chunk with every exchange stored under `raw/chunk_XX/`, the union, filters (citation-list,
 * reference-only), grounding (every evidence quote must occur in the source; locators become "page N"
 * for PDFs), the page-furniture filter (evidence only in running headers/footers or page numbers),
 * dedup over the whole union, ids, then `probes_deduped.jsonl` and last
 * `probe_generation_status.json` (its presence with status complete marks the bank finished).
 */
export async function generateCaseProbes(
  layout: RunLayout,
  sourceCase: SourceCase,
  options: GenerateCaseProbesOptions,
): Promise<CaseProbesResult> {
  // One writer per case folder: two runs on the same data folder wait for each other.
  return withDirectoryLock(
    layout.probesDir(sourceCase.caseId),
    () => buildCaseProbes(layout, sourceCase, options),
    {
      timeoutMs: 600_000,
    },
  );
}

async function buildCaseProbes(
  layout: RunLayout,
  sourceCase: SourceCase,
  options: GenerateCaseProbesOptions,
): Promise<CaseProbesResult> {
  const caseId = sourceCase.caseId;
  const k = options.k ?? PROBE_DEFAULTS.k;
  const chunking = {
    source_chars: options.sourceChars ?? PROBE_DEFAULTS.sourceChars,
    chunk_chars: options.chunkChars ?? PROBE_DEFAULTS.chunkChars,
    chunk_overlap: options.chunkOverlap ?? PROBE_DEFAULTS.chunkOverlap,
  };
  const statusFile = layout.probeStatusFile(caseId);
  const probesFile = layout.probesFile(caseId);
  const judge = options.generator.id;
  const fail = async (error: unknown, chunkCount = 0): Promise<CaseProbesResult> => {
    const message = describeError(error);
    await rm(probesFile, { force: true });
    const generationStatus = await writeJson(statusFile, probeGenerationStatusSchema, {
      case_id: caseId,
      status: 'failed',
      judge,
      k,
      counts: { generated: 0, filtered: 0, ungrounded: 0, duplicates: 0, final: 0 },
      chunking: { ...chunking, chunk_count: chunkCount },
      errors: [message],
    });
    return { caseId, status: 'failed', generationStatus, error: message };
  };

  let context: Awaited<ReturnType<typeof prepareSourceContext>>;
  try {
    // Stage 1 chose the PDF parser and the retained source (max chars, pages): a current context is
    // used as it is, and only a --source-chars / --pages given to this stage re-decides them.
    context = await prepareSourceContext(layout, sourceCase, {
      keepPdfParser: true,
      keepSourceSelection: true,
      ...options.sourceOptions,
      maxChars: options.sourceChars,
    });
    chunking.source_chars = context.extracted.maxChars;
  } catch (error) {
    const failed = await fail(error);
    // e.g. MinerU chosen without an endpoint: every case would fail the same way, so stop (exit 2).
    if (exitCodeFor(error) === 2) throw error;
    return failed;
  }
  const { text, pages, furniture, sourceSha256 } = context.extracted;
  const settings = probeBankSettings(sourceCase, options.generator, k, chunking, context.extracted);

  if (!options.force) {
    const existing = await findFinishedProbeBank(layout, caseId, settings);
    if (existing) return { caseId, status: 'skipped', generationStatus: existing };
  }

  const chunks = chunkSourceText(text, chunking.chunk_chars, chunking.chunk_overlap);
  // Template-phrased questions (the lexical generator) follow the source's language.
  const sourceLanguage = await detectSourceLanguage(text);
  const rawRoot = join(layout.probesDir(caseId), 'raw');
  await rm(rawRoot, { recursive: true, force: true });

  const jobs: Array<{ chunk: (typeof chunks)[number]; generationIndex: number }> = [];
  for (const chunk of chunks) for (let g = 0; g < k; g += 1) jobs.push({ chunk, generationIndex: g });
  options.progress?.grow?.(jobs.length);
  let outputs: GenerationOutput[];
  try {
    outputs = await mapWithConcurrency(jobs, options.concurrency ?? 4, async ({ chunk, generationIndex }) => {
      const input: GenerationInput = {
        caseId,
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
        sourceLanguage,
      };
      const rawFile = join(
        layout.rawChunkDir(caseId, chunk.index),
        `generation_${String(generationIndex).padStart(2, '0')}.json`,
      );
      const rawHeader = {
        case_id: caseId,
        judge,
        chunk: { index: chunk.index, count: chunks.length, start: chunk.start, end: chunk.end },
        generation_index: generationIndex,
        k,
      };
      try {
        const output = await options.generator
          .generate(input)
          .finally(() => options.progress?.tick(1, options.progressNote));
        await writeFileAtomic(
          rawFile,
          `${JSON.stringify({ ...rawHeader, exchanges: output.exchanges }, null, 2)}\n`,
        );
        return output;
      } catch (error) {
        const exchanges = (error as { details?: { exchanges?: unknown } }).details?.exchanges ?? [];
        await writeFileAtomic(
          rawFile,
          `${JSON.stringify({ ...rawHeader, exchanges, error: describeError(error) }, null, 2)}\n`,
        );
        throw error;
      }
    });
  } catch (error) {
    const failed = await fail(error, chunks.length);
    // A missing key or a refused login fails every case the same way: stop the run (exit 2).
    if (exitCodeFor(error) === 2) throw error;
    return failed;
  }

  const grounding = new GroundingIndex(text, pages);
  const filteredByReason = Object.fromEntries(
    [...FILTER_REASONS, 'page_furniture'].map((reason) => [reason, 0]),
  ) as Record<FilterReason | 'page_furniture', number>;
  let generated = 0;
  let malformed = 0;
  let ungrounded = 0;
  const candidates: Candidate[] = [];
  jobs.forEach(({ chunk, generationIndex }, jobIndex) => {
    const output = outputs[jobIndex]!;
    malformed += output.malformed;
    for (const probe of output.probes) {
      generated += 1;
      const reason = filterReasonFor(probe);
      if (reason) {
        filteredByReason[reason] += 1;
        continue;
      }
      const grounded = groundProbe(probe, grounding, pages.length > 0);
      if (!grounded) {
        ungrounded += 1;
        continue;
      }
      if (isPageFurnitureProbe(text, grounded.passages, furniture)) {
        filteredByReason.page_furniture += 1;
        continue;
      }
      candidates.push({
        probe: grounded.probe,
        chunkIndex: chunk.index,
        generationIndex,
        contentHash: hashCanonicalJson({
          question: probe.question,
          answer: probe.answer,
          evidence: probe.evidence.map((item) => item.text),
          level: probe.level,
          modality: probe.modality,
          theme: probe.theme,
        }),
        firstOffset: grounded.passages[0]!.start,
        evidenceOffsets: grounded.passages.map((passage) => passage.start),
      });
    }
  });

  // Source position first, so ids follow the document; the content hash makes the order (and with it
  // the keep-first dedup and the ids) independent of which chunk or sample produced a probe.
  candidates.sort(
    (a, b) =>
      a.firstOffset - b.firstOffset ||
      compareCodePoints(a.contentHash, b.contentHash) ||
      a.chunkIndex - b.chunkIndex ||
      a.generationIndex - b.generationIndex,
  );
  const dedup = deduplicateProbes(candidates.map((candidate) => candidate.probe));
  const mergedCount = new Map<number, number>();
  for (const { duplicateOf } of dedup.dropped)
    mergedCount.set(duplicateOf, (mergedCount.get(duplicateOf) ?? 0) + 1);
  const droppedIndexes = new Set(dedup.dropped.map((entry) => entry.index));
  const keptIndexes = candidates.map((_, index) => index).filter((index) => !droppedIndexes.has(index));
  const width = Math.max(4, String(keptIndexes.length).length);
  const bank: Probe[] = keptIndexes.map((index, ordinal) => {
    const candidate = candidates[index]!;
    return {
      probe_id: `pb_${String(ordinal + 1).padStart(width, '0')}`,
      source_case_id: caseId,
      scene: sourceCase.metadata.scene,
      question: candidate.probe.question,
      answer: candidate.probe.answer,
      evidence: candidate.probe.evidence,
      level: candidate.probe.level,
      modality: candidate.probe.modality,
      theme: candidate.probe.theme,
      metadata: {
        source_chunk_index: candidate.chunkIndex,
        source_chunk_count: chunks.length,
        generation_index: candidate.generationIndex,
        generator: judge,
        evidence_offsets: candidate.evidenceOffsets,
        content_sha256: candidate.contentHash,
        merged_duplicates: mergedCount.get(index) ?? 0,
        ...(candidate.probe.templateLanguage ? { template_language: candidate.probe.templateLanguage } : {}),
      },
    };
  });

  await writeJsonlAtomic(probesFile, probeSchema, bank);
  const filtered = Object.values(filteredByReason).reduce((sum, count) => sum + count, 0);
  const generationStatus = await writeJson(statusFile, probeGenerationStatusSchema, {
    case_id: caseId,
    status: 'complete',
    judge,
    k,
    counts: {
      generated,
      filtered,
      ungrounded,
      duplicates: dedup.dropped.length,
      final: bank.length,
      malformed,
      filtered_by_reason: filteredByReason,
    },
    chunking: { ...chunking, chunk_count: chunks.length },
    errors: [],
    source_sha256: sourceSha256,
    parser: context.extracted.parser,
    truncated: context.extracted.truncated,
    page_furniture_lines: furniture.length,
    source_language: sourceLanguage ?? null,
    template_languages: [
      ...new Set(
        bank.map((probe) => probe.metadata.template_language).filter((value) => value !== undefined),
      ),
    ].sort(),
    settings,
  });
  return { caseId, status: 'complete', generationStatus };
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
  chunking: { source_chars: number; chunk_chars: number; chunk_overlap: number },
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
  const existing = await readFinishedStatus(layout.probeStatusFile(caseId), layout.probesFile(caseId));
  return existing && canonicalJson(existing.settings) === canonicalJson(settings) ? existing : undefined;
}

async function readFinishedStatus(
  statusFile: string,
  probesFile: string,
): Promise<(ProbeGenerationStatus & { settings?: unknown }) | undefined> {
  if (!existsSync(statusFile) || !existsSync(probesFile)) return undefined;
  try {
    const status = await readJson(statusFile, probeGenerationStatusSchema);
    return status.status === 'complete'
      ? (status as ProbeGenerationStatus & { settings?: unknown })
      : undefined;
  } catch {
    // An unreadable status means the bank is not known to be finished: it is regenerated.
    return undefined;
  }
}

/**
 * Every evidence quote must be found in the source (normalised, on token boundaries); the probe keeps
 * its quotes, and for PDFs each locator becomes the "page N" where the quote starts. An empty model
 * locator becomes "chars a-b" for other sources. Returns the matched passage of each quote.
 */
function groundProbe(
  probe: GeneratedProbe,
  grounding: GroundingIndex,
  hasPages: boolean,
): { probe: GeneratedProbe; passages: Array<{ start: number; end: number }> } | null {
  const passages: Array<{ start: number; end: number }> = [];
  const evidence: GeneratedProbe['evidence'] = [];
  for (const item of probe.evidence) {
    const match = grounding.find(item.text);
    if (!match) return null;
    passages.push({ start: match.start, end: match.end });
    const locator =
      hasPages && match.page !== undefined
        ? `page ${match.page}`
        : item.locator || `chars ${match.start}-${match.end}`;
    evidence.push({ locator, text: item.text });
  }
  if (evidence.length === 0) return null;
  return { probe: { ...probe, evidence }, passages };
}
