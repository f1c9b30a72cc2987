import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { compareCodePoints, describeError, readJson } from '@xsb/core';
import {
  evaluationFilesFor,
  type PaperScore,
  type RubricEvaluation,
  type RubricRunRow,
  type RubricRunSummary,
  rubricEvaluationSchema,
  rubricRunSummarySchema,
  scorePaper,
} from '@xsb/rubric';

export const RUBRIC_SUMMARY_FILE = /^xsb_rubric_summary_.+\.json$/;

export interface RubricInstanceView {
  system: string;
  row: RubricRunRow;
  deckPath: string | null;
  evaluationFile: string | null;
  evaluation: RubricEvaluation | null;
  paper: PaperScore | null;
  problem: string | null;
}

export interface RubricSummaryView {
  system: string;
  file: string;
  summary: RubricRunSummary;
  instances: RubricInstanceView[];
}

export async function findRubricSummaries(root: string, depth = 4): Promise<string[]> {
  const found: string[] = [];
  async function walk(dir: string, level: number): Promise<void> {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => compareCodePoints(a.name, b.name))) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules' || entry.name === 'report_cache')
        continue;
      const path = join(dir, entry.name);
      if (entry.isFile() && RUBRIC_SUMMARY_FILE.test(entry.name)) found.push(path);
      else if (entry.isDirectory() && level < depth) await walk(path, level + 1);
    }
  }
  await walk(resolve(root), 0);
  return found;
}

function resolveDeck(deckPath: string | null, summaryDir: string): string | null {
  if (!deckPath) return null;
  if (isAbsolute(deckPath)) return deckPath;
  const beside = resolve(summaryDir, deckPath);
  return existsSync(beside) ? beside : resolve(deckPath);
}

export async function readRubricSummary(file: string, root: string): Promise<RubricSummaryView> {
  const summary = await readJson(file, rubricRunSummarySchema);
  const folder = relative(resolve(root), dirname(file)).split(sep).join('/');
  // `xsb rubric run --system` names it; older summaries and unnamed runs fall back to the folder.
  const system = summary.system ?? (folder === '' ? basename(resolve(root)) : folder);
  const instances: RubricInstanceView[] = [];
  for (const row of summary.rows) {
    const deckPath = resolveDeck(row.deck_path, dirname(file));
    const view: RubricInstanceView = {
      system,
      row,
      deckPath,
      evaluationFile: null,
      evaluation: null,
      paper: null,
      problem: row.error,
    };
    if (deckPath && (row.status === 'evaluated' || row.status === 'skipped')) {
      const evaluationFile = evaluationFilesFor(deckPath, summary.judge).evaluation;
      view.evaluationFile = evaluationFile;
      try {
        view.evaluation = await readJson(evaluationFile, rubricEvaluationSchema);
        view.paper = scorePaper(view.evaluation.items);
      } catch (error) {
        view.problem = describeError(error);
      }
    }
    instances.push(view);
  }
  return { system, file, summary, instances };
}
