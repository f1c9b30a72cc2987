import { describe, expect, it } from 'vitest';
import { expectedEffects } from '../evaluator-ids';
import type { PerturbationRecord } from '../schemas/meta-perturbation';
import { type MetaScoreRow, metaSensitivitySchema } from '../schemas/meta-sensitivity';
import { computeSensitivity } from './compute-sensitivity';
import { renderSensitivityReport } from './render-sensitivity-report';

const SHA = 'a'.repeat(64);

function record(kind: PerturbationRecord['kind'], severity: number): PerturbationRecord {
  return {
    deck: 'd',
    original: 'd.pptx',
    original_sha256: SHA,
    format: 'pptx',
    kind,
    severity,
    seed: 1,
    output: `${kind}/${severity}/d.pptx`,
    output_sha256: SHA,
    slide_count_before: 5,
    slide_count_after: 5,
    eligible_units: 4,
    changed_units: 1,
    changes: [],
    expected: expectedEffects(kind),
  };
}

function rows(
  deck: string,
  variant: string,
  kind: string | null,
  severity: number | null,
  values: Record<string, number | null>,
): MetaScoreRow[] {
  return Object.entries(values).map(([evaluator, value]) => ({
    deck,
    original_sha256: SHA,
    variant,
    kind,
    severity,
    evaluator,
    value,
    judge: 'lexical',
    ...(value === null ? { reason: 'not scored' } : {}),
  }));
}

/**
 * Eight decks. `xslides.correctness` should fall on corrupt_numbers: at severity 0.5 it falls on 7 of
 * 8 decks (deck 7 unchanged), at 0.25 on 4 of 8, and the drops grow with severity. It should not move
 * on pad_words: it moves there (by 0.1) on 6 of 8 decks — a length reaction. `layout.min_font_size`
 * never moves on corrupt_numbers (specificity 1).
 */
function fixture() {
  const all: MetaScoreRow[] = [];
  const records = new Map<string, PerturbationRecord>();
  for (let deck = 0; deck < 8; deck += 1) {
    const name = `s/audience_agnostic/all/case${deck}`;
    all.push(
      ...rows(name, 'original', null, null, { 'xslides.correctness': 0.9, 'layout.min_font_size': 1 }),
    );
    for (const severity of [0.25, 0.5]) {
      const variant = `corrupt_numbers@${severity}@1`;
      records.set(`${name}\u0000${variant}`, record('corrupt_numbers', severity));
      const fell = severity === 0.5 ? deck !== 7 : deck < 4;
      all.push(
        ...rows(name, variant, 'corrupt_numbers', severity, {
          'xslides.correctness': fell ? 0.9 - severity : 0.9,
          'layout.min_font_size': 1,
        }),
      );
    }
    const pad = `pad_words@0.5@1`;
    records.set(`${name}\u0000${pad}`, record('pad_words', 0.5));
    all.push(
      ...rows(name, pad, 'pad_words', 0.5, {
        'xslides.correctness': deck < 6 ? 0.8 : 0.9,
        'layout.min_font_size': 1,
      }),
    );
  }
  return { all, records };
}

describe('computeSensitivity', () => {
  const { all, records } = fixture();
  const result = computeSensitivity({
    judge: 'lexical',
    offline: true,
    run: 'r',
    derivedRun: 'r@meta',
    rows: all,
    records,
    skipped: [],
    failures: [],
    seed: 1,
    resamples: 500,
    confidence: 0.95,
  });

  it('validates and counts decks, not rows', () => {
    expect(() => metaSensitivitySchema.parse(result)).not.toThrow();
    expect(result.original_decks).toBe(8);
    expect(result.perturbed_decks).toBe(24);
  });

  it('computes per-severity sensitivity with a Wilson interval and the mean paired change', () => {
    const high = result.cells.find(
      (cell) =>
        cell.evaluator === 'xslides.correctness' && cell.kind === 'corrupt_numbers' && cell.severity === 0.5,
    )!;
    expect(high.expected).toBe('lower');
    expect(high.fell).toMatchObject({ n: 8, k: 7, share: 0.875 });
    // Wilson 95 % for 7/8: [0.529, 0.978].
    expect(high.fell.ci_low).toBeCloseTo(0.529, 3);
    expect(high.fell.ci_high).toBeCloseTo(0.978, 3);
    expect(high.mean_change.mean).toBeCloseTo((-0.5 * 7) / 8, 12);
    const low = result.cells.find(
      (cell) =>
        cell.evaluator === 'xslides.correctness' && cell.kind === 'corrupt_numbers' && cell.severity === 0.25,
    )!;
    expect(low.fell).toMatchObject({ n: 8, k: 4 });
  });

  it('pools severities for the summary, with a graded response and the mark', () => {
    const row = result.summary.find(
      (item) => item.evaluator === 'xslides.correctness' && item.kind === 'corrupt_numbers',
    )!;
    expect(row.sensitivity).toMatchObject({ n: 16, k: 11 });
    // Drops are 0 or the severity, and grow with it: a clearly positive tau-b.
    expect(row.graded_tau_b!).toBeGreaterThan(0.3);
    expect(row.graded_n).toBe(16);
    // Falls on 6/8 of the pad_words decks it should ignore, so 11/16 on real damage is not "real".
    expect(row.mark).toBe('length_only');
    const control = result.length_controls.find((item) => item.evaluator === 'xslides.correctness')!;
    expect(control.pad_words_fall_share).toBe(0.75);
    expect(control.tracks_length).toBe(true);
  });

  it('measures specificity where the score should not move', () => {
    const font = result.summary.find(
      (item) => item.evaluator === 'layout.min_font_size' && item.kind === 'corrupt_numbers',
    )!;
    expect(font.expected).toBe('unchanged');
    expect(font.specificity).toMatchObject({ n: 16, k: 16, share: 1 });
    const pad = result.summary.find(
      (item) => item.evaluator === 'xslides.correctness' && item.kind === 'pad_words',
    )!;
    expect(pad.expected).toBe('unchanged');
    // |0.8 − 0.9| = 0.1 > 0.02 on 6 decks.
    expect(pad.specificity).toMatchObject({ n: 8, k: 2 });
  });

  it('reports evaluators without any value as not applicable, with the reason', () => {
    const holistic = result.evaluators.find((item) => item.id === 'holistic.overall')!;
    expect(holistic.applicable).toBe(false);
    expect(result.evaluators.find((item) => item.id === 'xslides.correctness')!.applicable).toBe(true);
  });

  it('renders the table with one row per evaluator and one column per kind', () => {
    const report = renderSensitivityReport(result);
    expect(report).toContain('| evaluator | corrupt_numbers | pad_words |');
    expect(report).toMatch(/\| `xslides.correctness` \| 0\.69 ~ \(16\) \| · \|/);
    expect(report).toContain('| `holistic.overall` | – | – |');
  });

  it('marks a clean, deterministic evaluator as real', () => {
    const clean = computeSensitivity({
      judge: 'lexical',
      offline: true,
      run: 'r',
      derivedRun: 'r@meta',
      // Falls on all 16 damaged decks, never on the padded ones.
      rows: all.map((row) => {
        if (row.evaluator !== 'xslides.correctness' || row.kind === null) return row;
        return { ...row, value: row.kind === 'pad_words' ? 0.9 : 0.4 };
      }),
      records,
      skipped: [],
      failures: [],
      seed: 1,
      resamples: 200,
      confidence: 0.95,
    });
    expect(
      clean.summary.find(
        (item) => item.evaluator === 'xslides.correctness' && item.kind === 'corrupt_numbers',
      )!.mark,
    ).toBe('real');
  });
});
