import type { CallUsage } from '@xsb/core';
import type { CompletionRequest } from '@xsb/llm';
import type { SourcePageFurniture, SourcePageSpan } from '@xsb/sources';

/** A probe as a generator returns it, before filters, grounding, dedup and ids. */
export interface GeneratedProbe {
  question: string;
  answer: string;
  evidence: Array<{ locator: string; text: string }>;
  /** 1 = a stated fact, 2 = a relation or explanation, 3 = a synthesis across the source. */
  level: number;
  modality: string;
  theme: string;
  /**
   * The language of the question's wording when a generator phrases it from templates (the lexical
   * generator): the source's language when it has templates, else `en`. Kept in probe metadata.
   */
  templateLanguage?: string;
}

/** One chunk as a generator sees it. */
export interface GenerationInput {
  caseId: string;
  scene: string;
  title: string;
  /** The chunk text with its `[Source chunk chars start-end]` prefix. */
  chunkText: string;
  /** The chunk without the prefix, and where it starts in the source (for locators). */
  chunkBody: string;
  chunkStart: number;
  chunkIndex: number;
  chunkCount: number;
  /** 0-based index of this independent sample among the k generations of the chunk. */
  generationIndex: number;
  k: number;
  /** PDF page spans of the source (empty otherwise). */
  pages: readonly SourcePageSpan[];
  /**
   * Running headers/footers and page numbers of a PDF source (source offsets, whole lines): not probe
   * material. The lexical generator reads around them; a model's probes quoting only them are filtered.
   */
  furniture: readonly SourcePageFurniture[];
  /** The source's language (ISO 639-1) as stage 2 detected it, or undefined when unknown. */
  sourceLanguage?: string | undefined;
}

/** What one generation produced, plus the exchange(s) to store under `raw/chunk_XX/`. */
export interface GenerationOutput {
  probes: GeneratedProbe[];
  /** Items of the answer that were not usable probes (missing or invalid fields). */
  malformed: number;
  /** Each request and raw response of this generation, in order (a corrective retry adds one). */
  exchanges: Array<{ request: unknown; response: unknown }>;
}

export interface ProbeGenerator {
  /** Recorded as the judge id in probe_generation_status.json and probe metadata. */
  readonly id: string;
  /**
   * Changes whenever the generator would answer differently for the same chunk (prompt, sampling,
   * algorithm version); part of the settings that decide whether a finished bank is still current.
   */
  readonly fingerprint: string;
  /** `callMade` hears the usage of each model call the generation makes. */
  generate(input: GenerationInput, callMade?: (usage: CallUsage) => void): Promise<GenerationOutput>;
  /**
   * The first request a model generator sends for this generation (what a plan prices); absent for a
   * generator that calls no model (its work list units are decided by its rule).
   */
  requestFor?(input: GenerationInput): CompletionRequest;
}
