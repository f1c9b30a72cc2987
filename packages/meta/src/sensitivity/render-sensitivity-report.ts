import { type MetaSensitivity, PERTURBATION_KINDS } from '@xsb/core';

const MARKS: Record<MetaSensitivity['summary'][number]['mark'], string> = {
  real: ' ✓',
  length_only: ' ~',
  missed: '',
  not_applicable: '',
};

function number(value: number | null, digits = 2): string {
  return value === null ? '–' : value.toFixed(digits);
}

function table(header: string[], rows: string[][]): string[] {
  return [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ];
}

/** `meta/report.md`: the sensitivity table (one row per evaluator, one column per kind) and what it rests on. */
export function renderSensitivityReport(result: MetaSensitivity): string {
  const kinds = PERTURBATION_KINDS.filter(
    (kind) =>
      result.summary.some((row) => row.kind === kind) || result.skipped.some((row) => row.kind === kind),
  );
  const cell = (evaluator: string, kind: string) =>
    result.summary.find((row) => row.evaluator === evaluator && row.kind === kind);
  const applicable = new Set(
    result.evaluators.filter((evaluator) => evaluator.applicable).map((evaluator) => evaluator.id),
  );
  const lines: string[] = [];
  lines.push('# Meta-evaluation: which damage each evaluator notices', '');
  lines.push(
    `Judge \`${result.judge}\`${result.offline ? ' (offline, deterministic: no model)' : ''}; run \`${result.run}\` evaluated as \`${result.derived_run}\`: ${result.original_decks} original decks, ${result.perturbed_decks} perturbed decks. n counts decks (an agnostic deck evaluated for several audiences contributes the mean over them). Intervals: Wilson ${Math.round(result.bootstrap.confidence * 100)} % for shares, percentile bootstrap (${result.bootstrap.resamples} resamples, seed ${result.bootstrap.seed}) for mean changes.`,
    '',
  );
  lines.push(
    '## Sensitivity: share of decks whose score fell (strictly) where the damage should lower it',
    '',
  );
  lines.push(
    'Pooled over severities; `(n)` decks. ✓ = real: the lower bound of the interval is above 0.5 (a judge answering at random) and above the rate at which the evaluator falls on the length-only controls it should ignore. ~ = falls, but no more than on those controls (length only). · = this kind is not expected to lower it. – = the evaluator does not apply.',
    '',
  );
  lines.push(
    ...table(
      ['evaluator', ...kinds],
      result.evaluators.map((evaluator) => [
        `\`${evaluator.id}\``,
        ...kinds.map((kind) => {
          if (!applicable.has(evaluator.id)) return '–';
          const row = cell(evaluator.id, kind);
          if (!row) return 'skipped';
          if (row.expected !== 'lower') return '·';
          if (row.sensitivity.n === 0) return '–';
          return `${number(row.sensitivity.share)}${MARKS[row.mark]} (${row.sensitivity.n})`;
        }),
      ]),
    ),
    '',
  );
  lines.push(
    '## Specificity: share of decks whose score stayed within tolerance where the damage should not move it',
    '',
  );
  lines.push(
    ...table(
      ['evaluator', 'tolerance', ...kinds],
      result.evaluators
        .filter((evaluator) => applicable.has(evaluator.id))
        .map((evaluator) => [
          `\`${evaluator.id}\``,
          evaluator.tolerance.relative > 0
            ? `${evaluator.tolerance.relative * 100} %`
            : `${evaluator.tolerance.absolute < 1e-6 ? 0 : evaluator.tolerance.absolute}`,
          ...kinds.map((kind) => {
            const row = cell(evaluator.id, kind);
            if (row?.expected !== 'unchanged' || row.specificity.n === 0) return '·';
            return `${number(row.specificity.share)} (${row.specificity.n})`;
          }),
        ]),
    ),
    '',
  );
  lines.push('## Graded response: Kendall tau-b of severity vs score drop (expected-to-fall cells)', '');
  lines.push(
    ...table(
      ['evaluator', ...kinds],
      result.evaluators
        .filter((evaluator) => applicable.has(evaluator.id))
        .map((evaluator) => [
          `\`${evaluator.id}\``,
          ...kinds.map((kind) => {
            const row = cell(evaluator.id, kind);
            if (row?.expected !== 'lower' || row.graded_n === 0) return '·';
            return `${number(row.graded_tau_b)} (${row.graded_n})`;
          }),
        ]),
    ),
    '',
  );
  lines.push('## Mean paired change (perturbed − original) at each severity', '');
  const severities = [...new Set(result.cells.map((row) => row.severity))].sort((a, b) => a - b);
  lines.push(
    ...table(
      ['evaluator', 'kind', ...severities.map((severity) => `s = ${severity}`)],
      result.evaluators
        .filter((evaluator) => applicable.has(evaluator.id))
        .flatMap((evaluator) =>
          kinds
            .filter((kind) => cell(evaluator.id, kind)?.expected === 'lower')
            .map((kind) => [
              `\`${evaluator.id}\``,
              kind,
              ...severities.map((severity) => {
                const row = result.cells.find(
                  (item) =>
                    item.evaluator === evaluator.id && item.kind === kind && item.severity === severity,
                );
                if (!row || row.mean_change.n === 0) return '·';
                return `${number(row.mean_change.mean, 3)} [${number(row.mean_change.ci_low, 3)}, ${number(row.mean_change.ci_high, 3)}]`;
              }),
            ]),
        ),
    ),
    '',
  );
  lines.push('## Length controls: does it notice word or slide count rather than damage?', '');
  lines.push(
    ...table(
      ['evaluator', 'real damage', 'pad_words', 'duplicate_slides', 'tracks length', 'note'],
      result.length_controls
        .filter((row) => applicable.has(row.evaluator))
        .map((row) => [
          `\`${row.evaluator}\``,
          number(row.real_damage_sensitivity),
          number(row.pad_words_fall_share),
          number(row.duplicate_slides_fall_share),
          row.tracks_length ? '**yes**' : 'no',
          row.note,
        ]),
    ),
    '',
  );
  const notApplicable = result.evaluators.filter((evaluator) => !evaluator.applicable);
  if (notApplicable.length > 0) {
    lines.push('## Evaluators that do not apply here', '');
    for (const evaluator of notApplicable)
      lines.push(`- \`${evaluator.id}\`: ${evaluator.reason ?? 'no value'}`);
    lines.push('');
  }
  if (result.skipped.length > 0) {
    lines.push('## Perturbations skipped (recorded in perturbations.jsonl)', '');
    const counts = new Map<string, number>();
    for (const row of result.skipped)
      counts.set(`${row.kind}: ${row.reason}`, (counts.get(`${row.kind}: ${row.reason}`) ?? 0) + 1);
    for (const [reason, count] of [...counts].sort()) lines.push(`- ${count} × ${reason}`);
    lines.push('');
  }
  if (result.failures.length > 0) {
    lines.push('## Failures', '');
    for (const failure of result.failures) lines.push(`- ${failure.where}: ${failure.error}`);
    lines.push('');
  }
  return `${lines.join('\n')}`;
}
