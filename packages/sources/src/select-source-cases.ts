import { isCaseInShard, type Shard, UsageError } from '@xsb/core';
import { type DiscoveredSources, discoverSourceCases } from './discover-source-cases';

/** The cases `--case` and `--shard` pick (all without them); an unknown case is a usage error. */
export async function discoverSelectedCases(
  dataDir: string,
  wanted: string[] | undefined,
  shard?: Shard,
): Promise<DiscoveredSources> {
  const all = await discoverSourceCases(dataDir);
  const discovered = {
    cases: all.cases.filter((c) => isCaseInShard(c.caseId, shard)),
    failures: all.failures.filter((f) => isCaseInShard(f.caseId, shard)),
  };
  if (!wanted || wanted.length === 0) return discovered;
  // Cases of other shards are known too: `--case x --shard 1/3` with x on shard 0 selects nothing, no error.
  const known = [...all.cases.map((c) => c.caseId), ...all.failures.map((f) => f.caseId)];
  const selected = new Set(wanted);
  const unknown = [...selected].filter((id) => !known.includes(id));
  if (unknown.length > 0) {
    throw new UsageError(
      `unknown case ${unknown.map((id) => JSON.stringify(id)).join(', ')} (known: ${known.join(', ') || 'none'})`,
    );
  }
  return {
    cases: discovered.cases.filter((c) => selected.has(c.caseId)),
    failures: discovered.failures.filter((f) => selected.has(f.caseId)),
  };
}
