import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { UsageError } from '@xsb/core';
import { loadPresentBenchCase } from './load-presentbench-case';
import { loadRubricInstance, type RubricInstance } from './rubric-instance';
import { RUBRIC_CATEGORIES, type RubricCategory } from './schemas/rubric-instance';

/**
 * The instance a user points at: an xsb instance file, or a PresentBench case folder. A case's data
 * root is `dataRoot` when given, else the folder above the nearest domain folder (academia,
 * education, ...) on its path, since domain-level prompts and weights live there.
 */
export async function loadInstanceAt(path: string, dataRoot?: string): Promise<RubricInstance> {
  if (!existsSync(path))
    throw new UsageError(`${path}: no such instance file or case folder`, { code: 'missing_file' });
  if (statSync(path).isFile()) return loadRubricInstance(path);
  if (!existsSync(join(path, 'generation_task', 'judge_prompt.json'))) {
    throw new UsageError(
      `${path}: neither an instance file nor a PresentBench case folder (no generation_task/judge_prompt.json)`,
    );
  }
  if (dataRoot) return loadPresentBenchCase(dataRoot, path);
  for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir)) {
    if (RUBRIC_CATEGORIES.includes(basename(dir) as RubricCategory)) {
      return loadPresentBenchCase(dirname(dir), path);
    }
  }
  throw new UsageError(
    `${path}: no domain folder (${RUBRIC_CATEGORIES.join(', ')}) above the case; give its data root`,
  );
}
