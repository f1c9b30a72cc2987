/**
 * The pure steps that turn a case's generations into its bank: filter → ground → page furniture →
 * order → dedup → ids. No file is read or written here, so each rule is tested on its own.
 */
import { compareCodePoints, hashCanonicalJson, type Probe } from '@xsb/core';
import type { SourcePageFurniture, SourcePageSpan } from '@xsb/sources';
import { deduplicateProbes } from './deduplicate-probes';
import { FILTER_REASONS, type FilterReason, filterReasonFor } from './filter-probes';
import type { GeneratedProbe, GenerationOutput } from './generated-probe';
import { GroundingIndex } from './ground-evidence';
import { isPageFurnitureProbe } from './page-furniture-filter';

export interface ProbeCandidate {
  probe: GeneratedProbe;
  chunkIndex: number;
  generationIndex: number;
  contentHash: string;
  firstOffset: number;
  evidenceOffsets: number[];
}

export type ScreenReason = FilterReason | 'page_furniture';

export interface ScreenedProbes {
  candidates: ProbeCandidate[];
  generated: number;
  malformed: number;
  ungrounded: number;
  filteredByReason: Record<ScreenReason, number>;
}

/** The source a bank is grounded in. */
export interface GroundingSource {
  text: string;
  pages: readonly SourcePageSpan[];
  furniture: readonly SourcePageFurniture[];
}

/**
 * The union of every generation, screened: the filters (citation list, reference only, URL, …),
 * grounding (every quote found in the source), then the page-furniture filter. `generations[i]`
 * answered chunk `chunkIndex` sample `generationIndex`.
 */
export function screenGeneratedProbes(
  generations: ReadonlyArray<{ chunkIndex: number; generationIndex: number; output: GenerationOutput }>,
  source: GroundingSource,
): ScreenedProbes {
  const grounding = new GroundingIndex(source.text, source.pages);
  const screened: ScreenedProbes = {
    candidates: [],
    generated: 0,
    malformed: 0,
    ungrounded: 0,
    filteredByReason: Object.fromEntries(
      [...FILTER_REASONS, 'page_furniture'].map((reason) => [reason, 0]),
    ) as Record<ScreenReason, number>,
  };
  for (const { chunkIndex, generationIndex, output } of generations) {
    screened.malformed += output.malformed;
    for (const probe of output.probes) {
      screened.generated += 1;
      const reason = filterReasonFor(probe);
      if (reason) {
        screened.filteredByReason[reason] += 1;
        continue;
      }
      const grounded = groundProbe(probe, grounding, source.pages.length > 0);
      if (!grounded) {
        screened.ungrounded += 1;
        continue;
      }
      if (isPageFurnitureProbe(source.text, grounded.passages, source.furniture)) {
        screened.filteredByReason.page_furniture += 1;
        continue;
      }
      screened.candidates.push({
        probe: grounded.probe,
        chunkIndex,
        generationIndex,
        contentHash: probeContentHash(probe),
        firstOffset: grounded.passages[0]!.start,
        evidenceOffsets: grounded.passages.map((passage) => passage.start),
      });
    }
  }
  return screened;
}

function probeContentHash(probe: GeneratedProbe): string {
  return hashCanonicalJson({
    question: probe.question,
    answer: probe.answer,
    evidence: probe.evidence.map((item) => item.text),
    level: probe.level,
    modality: probe.modality,
    theme: probe.theme,
  });
}

/**
 * Every evidence quote must be found in the source (normalised, on token boundaries); the probe keeps
 * its quotes, and for PDFs each locator becomes the "page N" where the quote starts. An empty model
 * locator becomes "chars a-b" for other sources. Returns the matched passage of each quote.
 */
export function groundProbe(
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

/**
 * Source position first, so ids follow the document; the content hash makes the order (and with it
 * the keep-first dedup and the ids) independent of which chunk or sample produced a probe.
 */
export function orderCandidates(candidates: readonly ProbeCandidate[]): ProbeCandidate[] {
  return [...candidates].sort(
    (a, b) =>
      a.firstOffset - b.firstOffset ||
      compareCodePoints(a.contentHash, b.contentHash) ||
      a.chunkIndex - b.chunkIndex ||
      a.generationIndex - b.generationIndex,
  );
}

export interface BankIdentity {
  caseId: string;
  scene: string;
  /** The generator's id, recorded in each probe's metadata. */
  generator: string;
  chunkCount: number;
}

/**
 * Dedup over the ordered candidates (keep-first), then ids `pb_0001…` in that order; each kept probe
 * records how many duplicates it absorbed.
 */
export function assembleProbeBank(
  ordered: readonly ProbeCandidate[],
  identity: BankIdentity,
): { bank: Probe[]; duplicates: number } {
  const dedup = deduplicateProbes(ordered.map((candidate) => candidate.probe));
  const mergedCount = new Map<number, number>();
  for (const { duplicateOf } of dedup.dropped)
    mergedCount.set(duplicateOf, (mergedCount.get(duplicateOf) ?? 0) + 1);
  const droppedIndexes = new Set(dedup.dropped.map((entry) => entry.index));
  const keptIndexes = ordered.map((_, index) => index).filter((index) => !droppedIndexes.has(index));
  const width = Math.max(4, String(keptIndexes.length).length);
  const bank = keptIndexes.map((index, ordinal): Probe => {
    const { probe, chunkIndex, generationIndex, evidenceOffsets, contentHash } = ordered[index]!;
    return {
      probe_id: `pb_${String(ordinal + 1).padStart(width, '0')}`,
      source_case_id: identity.caseId,
      scene: identity.scene,
      question: probe.question,
      answer: probe.answer,
      evidence: probe.evidence,
      level: probe.level,
      modality: probe.modality,
      theme: probe.theme,
      metadata: {
        source_chunk_index: chunkIndex,
        source_chunk_count: identity.chunkCount,
        generation_index: generationIndex,
        generator: identity.generator,
        evidence_offsets: evidenceOffsets,
        content_sha256: contentHash,
        merged_duplicates: mergedCount.get(index) ?? 0,
        ...(probe.templateLanguage ? { template_language: probe.templateLanguage } : {}),
      },
    };
  });
  return { bank, duplicates: dedup.dropped.length };
}
