import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { hashFile, InputError, readJson } from '@xsb/core';
import type { EvaluationMetricReader } from '@xsb/metrics';
import { DESIGN_FILE, REFERENCE_FILE } from './design-work-list';
import { DESIGN_METRICS, designRecordSchema } from './schemas/design-record';
import { referenceRecordSchema } from './schemas/reference-record';

/**
 * The design metrics as stage 7 (`xsb aggregate`) reads them: each evaluation folder's `design.json` deck
 * means, summarised per system and audience beside the X+Slides metrics. A design.json measured from an
 * earlier version of the deck is skipped with that reason, never averaged in.
 */
export const designMetricReader: EvaluationMetricReader = {
  family: 'design',
  file: DESIGN_FILE,
  description:
    'deck means computed from the rendered slides with no judge (n decks, interval over decks). ' +
    'contrast_min and contrast_median (WCAG ratio, 1–21): higher reads better; contrast_below_4_5 and ' +
    'contrast_below_3 (text elements per slide under 4.5:1 and 3:1): lower is better; colorfulness, harmony ' +
    '(degrees off the nearest hue template), complexity (bits), whitespace (share) and balance (offset of the ' +
    'visual centre) describe the style, with no better direction.',
  metrics: DESIGN_METRICS,
  async read(evaluationDir) {
    const file = join(evaluationDir, DESIGN_FILE);
    if (!existsSync(file)) return null;
    const record = await readJson(file, designRecordSchema);
    await assertSameBytes(evaluationDir, record.deck_file, record.deck_sha256);
    return Object.fromEntries(DESIGN_METRICS.map((metric) => [metric, record.deck[metric]]));
  },
};

const REFERENCE_METRICS = ['slide_count_ratio', 'rouge_l', 'order_tau', 'key_term_recall'] as const;

/**
 * The metrics against a case's human-made reference deck (`reference.json`), read by stage 7 as a family of
 * their own, never mixed into the reference-free design metrics. Stale files are skipped like design.json.
 */
export const referenceMetricReader: EvaluationMetricReader = {
  family: 'reference',
  file: REFERENCE_FILE,
  description:
    "the deck's text against the human-made reference deck of its case (only cases that have one; no judge). " +
    'slide_count_ratio: deck slides over reference slides (1 = as many); rouge_l (0–1), order_tau (−1–1, the ' +
    'order of the matched slides) and key_term_recall (0–1): higher is closer to the reference.',
  metrics: REFERENCE_METRICS,
  async read(evaluationDir) {
    const file = join(evaluationDir, REFERENCE_FILE);
    if (!existsSync(file)) return null;
    const record = await readJson(file, referenceRecordSchema);
    await assertSameBytes(evaluationDir, record.deck_file, record.deck_sha256);
    await assertSameBytes(evaluationDir, record.reference_file, record.reference_sha256);
    return Object.fromEntries(REFERENCE_METRICS.map((metric) => [metric, record[metric]]));
  },
};

/** A file measured from other bytes than the ones now there is not averaged in. */
async function assertSameBytes(evaluationDir: string, path: string, sha256: string): Promise<void> {
  const file = resolve(evaluationDir, path);
  if (!existsSync(file) || (await hashFile(file)) !== sha256)
    throw new InputError(
      `measured from a deck that is no longer there as it was (${path}); measure the run's design again`,
    );
}
