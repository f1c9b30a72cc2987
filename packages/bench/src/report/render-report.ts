import { plural } from '@xsb/core';
import { isDesignMetric } from '../bench-metrics';
import { referenceReason } from '../run/reference-system';
import type { BenchRun } from '../schemas/bench-run';
import type { BenchComparison, BenchStat, BenchSummary } from '../schemas/bench-summary';

/** Fixed decimals; a value that rounds to zero prints without a minus sign. */
export const formatNumber = (value: number | null | undefined, digits = 3) =>
  value === null || value === undefined ? '–' : value.toFixed(digits).replace(/^-(0\.0+)$/, '$1');

/** p-values: three decimals, or scientific notation below 0.001 so small ones stay readable. */
export const formatPValue = (value: number | null | undefined) =>
  value === null || value === undefined ? '–' : value < 0.001 ? value.toExponential(1) : value.toFixed(3);

export function formatStat(stat: BenchStat | undefined): string {
  if (!stat || stat.mean === null) return '–';
  if (stat.n_cases <= 1) return `${formatNumber(stat.mean)} (n=${stat.n})`;
  return `${formatNumber(stat.mean)} [${formatNumber(stat.ci_low)}, ${formatNumber(stat.ci_high)}] (n=${stat.n})`;
}

const side = (c: BenchComparison, which: 'a' | 'b', withConfiguration: boolean) => {
  const s = c[which];
  return withConfiguration ? `${s.configuration} · ${s.system_id}` : s.system_id;
};

function comparisonTable(comparisons: readonly BenchComparison[], withConfiguration: boolean): string[] {
  if (comparisons.length === 0) return ['(no pair with a shared case)', ''];
  const lines = [
    '| B vs A | metric | cases | mean diff B − A [95% CI] | McNemar b/c, p | Holm p | verdict | diag | MDE | missing cases (only A / only B) |',
    '| --- | --- | ---: | --- | --- | ---: | --- | --- | ---: | --- |',
  ];
  for (const c of comparisons) {
    const mcnemar = c.mcnemar ? `${c.mcnemar.b}/${c.mcnemar.c}, ${formatPValue(c.mcnemar.p)}` : '–';
    const missing =
      c.missing_cases.only_a.length + c.missing_cases.only_b.length === 0
        ? 'none'
        : `${c.missing_cases.only_a.join(', ') || '–'} / ${c.missing_cases.only_b.join(', ') || '–'}`;
    lines.push(
      `| ${side(c, 'b', withConfiguration)} vs ${side(c, 'a', withConfiguration)} | ${c.metric} | ${c.n_cases} | ${formatNumber(c.mean_diff)} [${formatNumber(c.ci_low)}, ${formatNumber(c.ci_high)}] | ${mcnemar} | ${formatPValue(c.holm_p)} | ${c.verdict ?? '–'} | ${c.diag ? 'diag' : ''} | ${formatNumber(c.mde)} | ${missing} |`,
    );
  }
  lines.push('');
  return lines;
}

function bar(value: number, scale: number): string {
  const width = scale === 0 ? 0 : Math.round((Math.abs(value) / scale) * 20);
  if (width === 0) return '';
  return `${value < 0 ? '-' : '+'}${(value < 0 ? '▒' : '█').repeat(width)}`;
}

function header(summary: BenchSummary, run: BenchRun): string[] {
  const git =
    run.git.sha === null
      ? 'not a git repository (run id suffix `nogit`)'
      : `${run.git.sha}${run.git.dirty ? ' (dirty: tracked files differ from HEAD)' : ''}`;
  const lines = [
    `# xsb bench run ${run.run_id}`,
    '',
    `- git: ${git}`,
    `- pipeline run: \`${run.pipeline_run}\`; split: **${run.split}** (${run.cases.length} cases); status: ${run.status}${run.reason ? ` (${run.reason})` : ''}`,
    ...(run.shard
      ? [
          `- shard ${run.shard}: only the split's cases with md5(case) % n == i; merge the shards' data folders (\`xsb merge\`) and run the bench unsharded to compare on the whole split`,
        ]
      : []),
    `- test split opened ${plural(run.test_ledger_count, 'time')}`,
    `- judges: ${run.judges
      .map((judge) =>
        judge.offline
          ? `\`${judge.id}\` (offline)`
          : `\`${judge.id}\` (${judge.mode} store ${judge.replay_store}, model label ${judge.model_label ?? 'none yet'}${judge.filled_by ? `, prompts it lacked filled by \`${judge.filled_by}\`` : ''})`,
      )
      .join('; ')}`,
  ];
  if (run.judges.some((judge) => judge.offline))
    lines.push(
      '- **Offline judge**: `lexical` numbers are a smoke test of the pipeline; they do not rank real systems.',
    );
  lines.push(
    `- tau_a: ${run.tau_a}; intervals: 95% cluster bootstrap over cases (the audiences of a case move together), seed ${run.bootstrap.seed}, ${run.bootstrap.resamples} resamples`,
    `- configurations: \`${run.config_spec}\`${run.factors.length > 0 ? ` over factors ${run.factors.map((f) => `\`${f}\``).join(', ')}` : ''}; systems: ${run.systems.map((s) => `\`${s}\``).join(', ')}; reference: ${run.reference ? `\`${run.reference}\`${run.reference_from ? ` (${referenceReason(run.reference_from)})` : ''}` : '–'}`,
    ...summary.left_out_factors.map(
      (left) =>
        `- left out factor \`${left.factor}\`: ${left.reason} (not run: no rung, leave-one-out or Shapley value)`,
    ),
    `- rows: ${summary.rows.total} (${summary.rows.failed} failed); comparisons on fewer than ${run.diag_below} cases are marked diag (a diagnostic, not a result)`,
  );
  if (run.judge_calls)
    lines.push(
      `- judge calls: ${run.judge_calls.measured} (distinct work ${run.judge_calls.distinct}; a naive run per configuration would make ${run.judge_calls.naive})`,
    );
  lines.push(
    '',
    'Cells are `mean [95% CI] (n rows)`; comparisons pair the same (case, audience) units, rubric metrics the same cases; the difference is B − A. Verdicts: `real` = the paired interval excludes 0; `indeterminate` = a zero-width interval away from 0 (one case, or identical differences); `no evidence` otherwise. MDE = the smallest difference this many cases detect at 80% power, α = 0.05. Holm p adjusts every McNemar test of the run. See docs/bench.md.',
    '',
  );
  return lines;
}

const DESIGN_TABLE_NOTE =
  'computed from the rendered slides with no judge, so the same in every configuration, and compared on the same cases like the rubric; no direction is better: contrast_* higher reads better, contrast_below_* lower, the others describe the style';

/** `| system | metric… |` with each system's overall `mean [95% CI] (n rows)`. */
function systemTable(
  systems: BenchSummary['configurations'][number]['systems'],
  metrics: readonly string[],
  headers: readonly string[] = metrics,
): string[] {
  return [
    `| system | ${headers.join(' | ')} |`,
    `| --- | ${headers.map(() => '---').join(' | ')} |`,
    ...systems.map(
      (system) =>
        `| ${system.system_id} | ${metrics.map((m) => formatStat(system.overall[m])).join(' | ')} |`,
    ),
  ];
}

/**
 * `report.md` of a bench run, from `summary.json` and `run.json` alone (so `xsb bench report DIR`
 * re-renders it byte for byte): the header (git, split, test openings, judges, bootstrap), then per
 * configuration the system tables and paired comparisons, the ladder steps, leave-one-out deltas,
 * Shapley values with their subset values, and the failed rows.
 */
export function renderBenchReport(summary: BenchSummary, run: BenchRun): string {
  const lines = header(summary, run);
  const judged = summary.metrics.filter((metric) => !isDesignMetric(metric));
  const design = summary.metrics.filter(isDesignMetric);
  for (const configuration of summary.configurations) {
    const factors = Object.entries(configuration.factors);
    const recorded = run.configurations.find((c) => c.name === configuration.name);
    lines.push(`## Configuration \`${configuration.name}\``, '');
    lines.push(
      `${
        factors.length > 0
          ? `Factors on: ${
              factors
                .filter(([, on]) => on)
                .map(([f]) => `\`${f}\``)
                .join(', ') || 'none'
            }. `
          : ''
      }Evaluations in \`${recorded?.evaluations_dir ?? '?'}\` (settings digest ${configuration.settings_digest.slice(0, 12)}). Rows: ${configuration.rows} (${configuration.failed_rows} failed).`,
      '',
    );
    lines.push(...systemTable(configuration.systems, judged), '');
    if (design.length > 0)
      lines.push(
        `Design metrics (${DESIGN_TABLE_NOTE}):`,
        '',
        ...systemTable(
          configuration.systems,
          design,
          design.map((metric) => metric.slice('design.'.length)),
        ),
        '',
      );
    const audiences = [...new Set(configuration.systems.flatMap((s) => Object.keys(s.by_audience)))];
    if (audiences.length > 0) {
      lines.push(
        `Coverage by audience:`,
        '',
        `| system | ${audiences.join(' | ')} |`,
        `| --- | ${audiences.map(() => '---').join(' | ')} |`,
      );
      for (const system of configuration.systems)
        lines.push(
          `| ${system.system_id} | ${audiences.map((a) => formatStat(system.by_audience[a]?.coverage)).join(' | ')} |`,
        );
      lines.push('');
    }
    const scenes = Object.keys(configuration.by_scene);
    if (scenes.length > 0) {
      lines.push('Coverage by scene (all systems):', '', '| scene | coverage |', '| --- | --- |');
      for (const scene of scenes)
        lines.push(`| ${scene} | ${formatStat(configuration.by_scene[scene]?.coverage)} |`);
      lines.push('');
    }
    lines.push('Comparisons:', '');
    lines.push(
      ...comparisonTable(
        summary.comparisons.filter(
          (c) =>
            (c.kind === 'reference' || c.kind === 'condition') && c.a.configuration === configuration.name,
        ),
        false,
      ),
    );
  }
  if (summary.ladder.length > 0) {
    lines.push(
      '## Ladder steps',
      '',
      'Each rung switches on one more factor; each step pairs rung k against rung k − 1 on the same systems.',
      '',
    );
    lines.push(
      ...comparisonTable(
        summary.comparisons.filter((c) => c.kind === 'ladder'),
        true,
      ),
    );
  }
  if (summary.leave_one_out.length > 0) {
    lines.push(
      '## Leave-one-out',
      '',
      "Each factor's paired delta: `full` against the full set minus that factor (B − A = what the factor adds).",
      '',
    );
    lines.push(
      ...comparisonTable(
        summary.comparisons.filter((c) => c.kind === 'loo'),
        true,
      ),
    );
  }
  if (summary.shapley) {
    const { shapley } = summary;
    const scale = Math.max(0, ...shapley.factors.map((f) => Math.abs(f.value ?? 0)));
    lines.push(
      `## Shapley values of ${shapley.metric}`,
      '',
      `v(S) = ${shapley.value_function}. φ is each factor's marginal contribution averaged over every order of switching the factors on; the interval resamples cases.`,
      '',
    );
    lines.push('| factor | φ [95% CI] | |', '| --- | --- | --- |');
    for (const factor of shapley.factors)
      lines.push(
        `| ${factor.factor} | ${formatNumber(factor.value)} [${formatNumber(factor.ci_low)}, ${formatNumber(factor.ci_high)}] | ${factor.value === null || bar(factor.value, scale) === '' ? '' : `\`${bar(factor.value, scale)}\``} |`,
      );
    lines.push('', 'Per-subset values:', '', '| configuration | v(S) | n |', '| --- | ---: | ---: |');
    for (const subset of shapley.subsets)
      lines.push(`| ${subset.configuration} | ${formatNumber(subset.value)} | ${subset.n} |`);
    lines.push('');
  }
  if (run.input_failures.length > 0) {
    lines.push('## Inputs that could not be read', '', '| where | error |', '| --- | --- |');
    for (const f of run.input_failures)
      lines.push(`| ${f.where} | ${f.error.replace(/\|/g, '\\|').replace(/\n/g, ' ')} |`);
    lines.push('');
  }
  if (summary.errors.length > 0) {
    lines.push(
      '## Failed rows',
      '',
      '| configuration | system | case | audience | error |',
      '| --- | --- | --- | --- | --- |',
    );
    for (const e of summary.errors)
      lines.push(
        `| ${e.configuration} | ${e.system_id} | ${e.case} | ${e.audience} | ${e.error.replace(/\|/g, '\\|').replace(/\n/g, ' ')} |`,
      );
    lines.push('');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
