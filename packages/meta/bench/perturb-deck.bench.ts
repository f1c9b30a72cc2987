/**
 * Perturbation throughput: every kind at three severities on the fixture PPTX (8 slides with a table,
 * a chart and notes) and on the fixture PDF, each written deck read back and verified, plus the pure
 * sensitivity computation on 10,000 synthetic score rows. Run: pnpm --filter @xsb/meta bench
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EVALUATOR_IDS, expectedEffects } from '../src/evaluator-ids';
import { perturbDeck } from '../src/perturb/perturb-deck';
import { PERTURBATION_KINDS, type PerturbationRecord } from '../src/schemas/meta-perturbation';
import type { MetaScoreRow } from '../src/schemas/meta-sensitivity';
import { computeSensitivity } from '../src/sensitivity/compute-sensitivity';

const fixtures = resolve(dirname(fileURLToPath(import.meta.url)), '../../../fixtures/decks');
const work = await mkdtemp(join(tmpdir(), 'xsb-meta-bench-'));
try {
  for (const deck of ['cs_raft_consensus.baseline.pptx', 'notebooklm/cs_raft_consensus.pdf']) {
    const started = performance.now();
    const { records } = await perturbDeck({
      deck: join(fixtures, deck),
      outDir: join(work, deck.replace(/\W/g, '_')),
    });
    const ms = performance.now() - started;
    const written = records.filter((record) => record.output).length;
    console.log(
      `${deck}: ${records.length} variants (${written} written and read back) in ${ms.toFixed(0)} ms = ${(ms / Math.max(1, written)).toFixed(1)} ms per written deck`,
    );
  }
  const rows: MetaScoreRow[] = [];
  const records = new Map<string, PerturbationRecord>();
  const sha = 'a'.repeat(64);
  for (let deck = 0; deck < 40; deck += 1) {
    const name = `s/c/a/case${deck}`;
    for (const evaluator of EVALUATOR_IDS.slice(0, 10))
      rows.push({
        deck: name,
        original_sha256: sha,
        variant: 'original',
        kind: null,
        severity: null,
        evaluator,
        value: 0.8,
        judge: 'bench',
      });
    for (const kind of PERTURBATION_KINDS) {
      for (const severity of [0.1, 0.25, 0.5]) {
        const variant = `${kind}@${severity}@1`;
        records.set(`${name}\u0000${variant}`, {
          deck: name,
          original: 'x',
          original_sha256: sha,
          format: 'pptx',
          kind,
          severity,
          seed: 1,
          output: 'x',
          output_sha256: sha,
          slide_count_before: 5,
          slide_count_after: 5,
          eligible_units: 5,
          changed_units: 1,
          changes: [],
          expected: expectedEffects(kind),
        });
        for (const evaluator of EVALUATOR_IDS.slice(0, 10))
          rows.push({
            deck: name,
            original_sha256: sha,
            variant,
            kind,
            severity,
            evaluator,
            value: 0.8 - severity * ((deck % 3) / 3),
            judge: 'bench',
          });
      }
    }
  }
  const started = performance.now();
  computeSensitivity({
    judge: 'bench',
    offline: true,
    run: 'r',
    derivedRun: 'r@meta',
    rows,
    records,
    skipped: [],
    failures: [],
    seed: 1,
    resamples: 2000,
    confidence: 0.95,
  });
  console.log(
    `computeSensitivity: ${rows.length} score rows (40 decks × 30 variants × 10 evaluators) in ${(performance.now() - started).toFixed(0)} ms`,
  );
} finally {
  await rm(work, { recursive: true, force: true });
}
