import { hashCanonicalJson, type WorkUnit } from '@xsb/core';
import type { EvaluationJob } from '@xsb/eval';

export const DESIGN_STAGE = 'design';
export const DESIGN_FILE = 'design.json';
export const REFERENCE_FILE = 'reference.json';

/** What decides one evaluation job's design artifacts, read from disk before the list is built. */
export interface DesignJobInput {
  job: EvaluationJob;
  /** The job's evaluation folder, where design.json (and reference.json) go. */
  dir: string;
  deckSha256: string;
  /** design.json's input hash for this deck and render width. */
  designHash: string;
  /** The case's reference deck and reference.json's input hash, when the case has one. */
  reference: { file: string; sha256: string; hash: string } | null;
  /** The input hashes of the files already in the folder (null: absent or unreadable). */
  existing: { design: string | null; reference: string | null };
}

export type DesignUnit = WorkUnit<never, DesignJobInput>;

/** Whether the folder already holds exactly what these inputs would write. */
function isCurrent(input: DesignJobInput): boolean {
  const { existing, designHash, reference } = input;
  return existing.design === designHash && existing.reference === (reference?.hash ?? null);
}

/**
 * The design stage's work list: one unit per evaluation job, decided by a rule (no judge), reused when its
 * files carry the same input hashes (a changed deck or reference is a changed input) unless forced.
 */
export function designWorkList(
  inputs: readonly DesignJobInput[],
  options: { force?: boolean } = {},
): DesignUnit[] {
  return inputs.map((input) => {
    const { job } = input;
    return {
      stage: DESIGN_STAGE,
      id: `${job.system}/${job.condition}/${job.audience}/${job.caseLabel}`,
      reads: [job.deckFile, ...(input.reference ? [input.reference.file] : [])],
      reuseKey: hashCanonicalJson({ design: input.designHash, reference: input.reference?.hash ?? null }),
      decision:
        !options.force && isCurrent(input)
          ? { kind: 'reuse', artifact: input.dir }
          : { kind: 'rule', rule: 'design metrics from the rendered slides' },
      input,
    };
  });
}
