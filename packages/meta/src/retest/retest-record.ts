import { writeJson } from '@xsb/core';
import { flipRates } from '../agreement/flip-rate';
import type { VerdictSet } from '../agreement/read-verdict-set';
import { type MetaRetest, metaRetestSchema } from '../schemas/meta-retest';

export interface RetestInput {
  kind: MetaRetest['kind'];
  judge: string;
  deterministic: boolean;
  /** One verdict set per repeat, repeat 0 first. */
  repeats: readonly VerdictSet[];
  scope: MetaRetest['scope'];
  repeatFiles: string;
  failures: MetaRetest['failures'];
  confidence?: number;
}

function noteOf(input: RetestInput, judged: number): string | null {
  if (input.deterministic)
    return `judge ${input.judge} is deterministic (a documented algorithm, no model): the same input gives the same verdict, so its flip rate is 0 by construction${judged === 0 ? ' (here no item was asked of a judge at all: check items are decided by code and left out)' : ''}; this says nothing about how stable a model judge would be`;
  if (judged === 0) return 'no item was judged in every repeat: nothing to compare';
  return null;
}

/** Writes `retest.json` (atomically, validated): the flip rate per item class of N repeated verdict sets. */
export async function writeRetest(file: string, input: RetestInput): Promise<MetaRetest> {
  const confidence = input.confidence ?? 0.95;
  const rates = flipRates(input.repeats, confidence);
  return writeJson(file, metaRetestSchema, {
    kind: input.kind,
    judge: input.judge,
    deterministic: input.deterministic,
    repeats: input.repeats.length,
    scope: input.scope,
    repeat_files: input.repeatFiles,
    confidence,
    classes: rates.classes,
    overall: rates.overall,
    incomplete: rates.incomplete,
    failures: input.failures,
    flips: rates.flips,
    note: noteOf(input, rates.overall.n),
  });
}
