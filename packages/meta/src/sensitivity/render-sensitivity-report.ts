import { PERTURBATION_KINDS } from '../schemas/meta-perturbation';
import type { MetaSensitivity } from '../schemas/meta-sensitivity';

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

interface ReportView {
  result: MetaSensitivity;
  kinds: string[];
  cell(evaluator: string, kind: string): MetaSensitivity['summary'][number] | undefined;
  applicable: MetaSensitivity['evaluators'];
}

function viewOf(result: MetaSensitivity): ReportView {
  const kinds = PERTURBATION_KINDS.filter(
    (kind) =>
      result.summary.some((row) => row.kind === kind) || result.skipped.some((row) => row.kind === kind),
  );
  return {
    result,
    kinds,
    cell: (evaluator, kind) => result.summary.find((row) => row.evaluator === evaluator && row.kind === kind),
    applicable: result.evaluators.filter((evaluator) => evaluator.applicable),
  };
}

function headerSection(result: MetaSensitivity): string[] {
  return [
    '# Meta-evaluation: which damage each evaluator notices',
    '',
    `Judge \`${result.judge}\`${result.offline ? ' (offline, deterministic: no model)' : ''}; run \`${result.run}\` evaluated as \`${result.derived_run}\`: ${result.original_decks} original decks, ${result.perturbed_decks} perturbed decks. n counts decks (an agnostic deck evaluated for several audiences contributes the mean over them). Intervals: Wilson ${Math.round(result.bootstrap.confidence * 100)} % for shares, percentile bootstrap (${result.bootstrap.resamples} resamples, seed ${result.bootstrap.seed}) for mean changes.`,
    '',
  ];
}

type Evaluator = MetaSensitivity['evaluators'][number];
type SummaryRow = MetaSensitivity['summary'][number];

function kindTable(
  view: ReportView,
  evaluators: readonly Evaluator[],
  before: Array<[string, (evaluator: Evaluator) => string]>,
  cell: (evaluator: Evaluator, row: SummaryRow | undefined) => string,
): string[] {
  return [
    ...table(
      ['evaluator', ...before.map(([name]) => name), ...view.kinds],
      evaluators.map((evaluator) => [
        `\`${evaluator.id}\``,
        ...before.map(([, value]) => value(evaluator)),
        ...view.kinds.map((kind) => cell(evaluator, view.cell(evaluator.id, kind))),
      ]),
    ),
    '',
  ];
}

function sensitivitySection(view: ReportView): string[] {
  const applicable = new Set(view.applicable.map((evaluator) => evaluator.id));
  return [
    '## Sensitivity: share of decks whose score fell (strictly) where the damage should lower it',
    '',
    'Pooled over severities; `(n)` decks. ✓ = real: the lower bound of the interval is above 0.5 (a judge answering at random) and above the rate at which the evaluator falls on the length-only controls it should ignore. ~ = falls, but no more than on those controls (length only). · = this kind is not expected to lower it. – = the evaluator does not apply.',
    '',
    ...kindTable(view, view.result.evaluators, [], (evaluator, row) => {
      if (!applicable.has(evaluator.id)) return '–';
      if (!row) return 'skipped';
      if (row.expected !== 'lower') return '·';
      if (row.sensitivity.n === 0) return '–';
      return `${number(row.sensitivity.share)}${MARKS[row.mark]} (${row.sensitivity.n})`;
    }),
  ];
}

function toleranceText({ tolerance }: Evaluator): string {
  if (tolerance.relative > 0) return `${tolerance.relative * 100} %`;
  return `${tolerance.absolute < 1e-6 ? 0 : tolerance.absolute}`;
}

function specificitySection(view: ReportView): string[] {
  return [
    '## Specificity: share of decks whose score stayed within tolerance where the damage should not move it',
    '',
    ...kindTable(view, view.applicable, [['tolerance', toleranceText]], (_, row) =>
      row?.expected !== 'unchanged' || row.specificity.n === 0
        ? '·'
        : `${number(row.specificity.share)} (${row.specificity.n})`,
    ),
  ];
}

function gradedSection(view: ReportView): string[] {
  return [
    '## Graded response: Kendall tau-b of severity vs score drop (expected-to-fall cells)',
    '',
    ...kindTable(view, view.applicable, [], (_, row) =>
      row?.expected !== 'lower' || row.graded_n === 0 ? '·' : `${number(row.graded_tau_b)} (${row.graded_n})`,
    ),
  ];
}

function meanChangeSection(view: ReportView): string[] {
  const { cells } = view.result;
  const severities = [...new Set(cells.map((row) => row.severity))].sort((a, b) => a - b);
  const change = (evaluator: string, kind: string, severity: number): string => {
    const row = cells.find(
      (item) => item.evaluator === evaluator && item.kind === kind && item.severity === severity,
    );
    if (!row || row.mean_change.n === 0) return '·';
    return `${number(row.mean_change.mean, 3)} [${number(row.mean_change.ci_low, 3)}, ${number(row.mean_change.ci_high, 3)}]`;
  };
  return [
    '## Mean paired change (perturbed − original) at each severity',
    '',
    ...table(
      ['evaluator', 'kind', ...severities.map((severity) => `s = ${severity}`)],
      view.applicable.flatMap((evaluator) =>
        view.kinds
          .filter((kind) => view.cell(evaluator.id, kind)?.expected === 'lower')
          .map((kind) => [
            `\`${evaluator.id}\``,
            kind,
            ...severities.map((severity) => change(evaluator.id, kind, severity)),
          ]),
      ),
    ),
    '',
  ];
}

function lengthControlsSection(view: ReportView): string[] {
  const applicable = new Set(view.applicable.map((evaluator) => evaluator.id));
  return [
    '## Length controls: does it notice word or slide count rather than damage?',
    '',
    ...table(
      ['evaluator', 'real damage', 'pad_words', 'duplicate_slides', 'tracks length', 'note'],
      view.result.length_controls
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
  ];
}

function listSections(result: MetaSensitivity): string[] {
  const lines: string[] = [];
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
  return lines;
}

/** `meta/report.md`: the sensitivity table (one row per evaluator, one column per kind) and what it rests on. */
export function renderSensitivityReport(result: MetaSensitivity): string {
  const view = viewOf(result);
  return [
    ...headerSection(result),
    ...sensitivitySection(view),
    ...specificitySection(view),
    ...gradedSection(view),
    ...meanChangeSection(view),
    ...lengthControlsSection(view),
    ...listSections(result),
  ].join('\n');
}
