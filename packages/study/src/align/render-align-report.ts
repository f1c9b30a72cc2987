import type { AlignRecord } from '../schemas/align-record';

const number = (value: number | null) => (value === null ? '–' : value.toFixed(3));
const interval = (low: number | null, high: number | null) =>
  low === null || high === null ? '' : ` [${number(low)}, ${number(high)}]`;

/** `align.md`: the tables of align.json, with what each number rests on. */
export function renderAlignReport(record: AlignRecord): string {
  const { seed, resamples, confidence } = record.bootstrap;
  const lines = [
    `# Alignment with people: study ${record.study}`,
    '',
    `${record.annotators.length} annotators (${record.annotators.join(', ')}) ranked the decks of ${record.answered_cases} cases of run "${record.data_run}".`,
    `ρ: per case and annotator, Spearman's ρ between an evaluator's scores of the decks and the annotator's ranking; the mean over the case's annotators, then over cases (PresentBench's way). Intervals: ${Math.round(confidence * 100)}% percentile bootstrap over cases (${resamples} resamples, seed ${seed}). n = cases.`,
    '',
    `- human ceiling (each annotator against the mean rank of the others): ${number(record.human_ceiling.spearman)}${interval(record.human_ceiling.ci_low, record.human_ceiling.ci_high)}, n = ${record.human_ceiling.n_cases}`,
    `- Kendall's W among annotators: ${number(record.kendall_w.w)}${interval(record.kendall_w.ci_low, record.kendall_w.ci_high)}, n = ${record.kendall_w.n_cases}`,
    '',
  ];
  if (record.evaluators.some((row) => row.offline))
    lines.push(
      '**Offline judge**: rows marked offline rest on the lexical judge, a smoke test of the pipeline, not a judge to rank.',
      '',
    );
  lines.push(
    '## Evaluators',
    '',
    'Design metrics have no better direction: their ρ says which way people leaned.',
    '',
    '| evaluator | judge | ρ [95% CI] | n | all decks alike in |',
    '| --- | --- | --- | --- | --- |',
    ...[...record.evaluators]
      .sort((a, b) => (b.spearman ?? -2) - (a.spearman ?? -2))
      .map(
        (row) =>
          `| ${row.evaluator} | ${row.judge ?? '–'}${row.offline ? ' (offline)' : ''} | ${number(row.spearman)}${interval(row.ci_low, row.ci_high)} | ${row.n_cases} | ${row.constant_cases.length} |`,
      ),
    '',
  );
  if (record.comparisons.length > 0)
    lines.push(
      '## Is the most aligned evaluator really closer to people?',
      '',
      'B − A in per-case ρ, paired over the cases both have; `real` = the interval excludes 0.',
      '',
      '| A | B | n | mean diff [95% CI] | verdict |',
      '| --- | --- | --- | --- | --- |',
      ...record.comparisons.map(
        (c) =>
          `| ${c.a} | ${c.b} | ${c.n_cases} | ${number(c.mean_diff)}${interval(c.ci_low, c.ci_high)} | ${c.verdict ?? '–'} |`,
      ),
      '',
    );
  if (record.ablation.length > 0)
    lines.push(
      '## Rubric dimension ablation (PresentBench Table 5)',
      '',
      "A deck's score is the mean of the listed dimensions' scores.",
      '',
      '| dimensions | ρ [95% CI] | n |',
      '| --- | --- | --- |',
      ...record.ablation.map(
        (row) =>
          `| ${row.dimensions.join(' + ')} | ${number(row.spearman)}${interval(row.ci_low, row.ci_high)} | ${row.n_cases} |`,
      ),
      '',
    );
  if (record.problems.length > 0)
    lines.push('## Scores that could not be read', '', ...record.problems.map((p) => `- ${p}`), '');
  return lines.join('\n');
}
