import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { compareCodePoints, hashCanonicalJson, isXsbError, type XsbError } from '@xsb/core';
import { findInstances, type RubricInstance } from '@xsb/rubric';
import { discoverSourceCases, type SourceCase } from '@xsb/sources';
import type { BenchCaseKind } from '../schemas/bench-split';
import { caseLanguage } from './case-language';

/** A case the bench can split: a source case, a rubric instance, or both under one id. */
export interface BenchCase {
  case: string;
  kind: BenchCaseKind;
  stratum: string;
  scene: string;
  language: string;
  source: SourceCase | null;
  rubric: RubricInstance | null;
  /** sha256 of the loaded rubric instance (canonical JSON), recorded in run.json. */
  rubricDigest: string | null;
}

export interface DiscoveredBenchCases {
  cases: BenchCase[];
  failures: Array<{ where: string; error: XsbError }>;
}

/** Rubric instances live under `<data>/rubric/` (xsb `instance.yaml` files or a PresentBench tree). */
export function rubricRoot(dataDir: string): string {
  return join(dataDir, 'rubric');
}

/**
 * Every case of a data folder: source cases (`<data>/sources/*`, stratum `<scene>×<language>`) and
 * rubric instances under `<data>/rubric/` keyed by their id (stratum `<category>×<language>`). An
 * instance whose id is a source case's label is the same case (`both`, the source stratum). Broken
 * cases are failures naming the folder; the rest are returned in id order.
 */
export async function discoverBenchCases(dataDir: string): Promise<DiscoveredBenchCases> {
  const failures: DiscoveredBenchCases['failures'] = [];
  const byId = new Map<string, BenchCase>();
  if (existsSync(join(dataDir, 'sources'))) {
    const discovered = await discoverSourceCases(dataDir);
    for (const failure of discovered.failures)
      failures.push({ where: join(dataDir, 'sources', failure.caseId), error: failure.error });
    for (const source of discovered.cases) {
      const language = caseLanguage(source.metadata);
      byId.set(source.caseId, {
        case: source.caseId,
        kind: 'source',
        stratum: `${source.metadata.scene}×${language}`,
        scene: source.metadata.scene,
        language,
        source,
        rubric: null,
        rubricDigest: null,
      });
    }
  }
  const root = rubricRoot(dataDir);
  if (existsSync(root)) {
    for (const entry of await findInstances(root)) {
      let instance: RubricInstance;
      try {
        instance = await entry.load();
      } catch (error) {
        if (!isXsbError(error)) throw error;
        failures.push({ where: join(root, entry.relativePath), error });
        continue;
      }
      const digest = hashCanonicalJson(instance);
      const same = byId.get(instance.id);
      if (same) {
        byId.set(instance.id, { ...same, kind: 'both', rubric: instance, rubricDigest: digest });
        continue;
      }
      byId.set(instance.id, {
        case: instance.id,
        kind: 'rubric',
        stratum: `${instance.category}×${instance.language}`,
        scene: instance.category,
        language: instance.language,
        source: null,
        rubric: instance,
        rubricDigest: digest,
      });
    }
  }
  const cases = [...byId.values()].sort((a, b) => compareCodePoints(a.case, b.case));
  return { cases, failures };
}
