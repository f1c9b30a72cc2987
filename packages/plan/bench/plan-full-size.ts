// The plan of the full PresentBench-size rubric run (238 instances × 8 systems), no run: what `xsb
// plan rubric run` would print for each system, summed, with its time and peak RSS. argv: JSON
// { master, judge }. Prints one JSON line.
import { join } from 'node:path';
import { CostPlanBuilder } from '../src/cost-plan-builder';
import { planRubric } from '../src/plan-rubric';

const { master, judge, systems } = JSON.parse(process.argv[2] ?? '{}') as {
  master: string;
  judge: string;
  systems: number;
};
let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 250);
const started = performance.now();
const builder = new CostPlanBuilder({ judge, noCache: true });
for (let s = 1; s <= systems; s += 1)
  await planRubric(builder, {
    instancesDir: join(master, 'instances'),
    resultsDir: join(master, 'results', `system-${s}`),
  });
const plan = await builder.finish({ command: 'rubric run', run: null, ledgerLinesBefore: 0 });
clearInterval(sampler);
process.stdout.write(
  `${JSON.stringify({ planMs: Math.round(performance.now() - started), peakRssMb: Math.round(peakRss / 1048576), totals: plan.totals, prices: plan.prices.as_of })}\n`,
);
