import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, join, relative, resolve, sep } from 'node:path';
import { compareCodePoints, InputError, readUtf8Text, ValidationError, validateRecord } from '@xsb/core';
import { parse as parseYaml } from 'yaml';
import { decodePresentBenchItem } from './decode-presentbench-item';
import { isPyMapping, pyGet, pyItems, pyStr, readPythonYaml } from './python-values';
import { detectInstructionLanguage, detectSourceAttributionRequirement } from './read-instruction';
import type { RubricInstance } from './rubric-instance';
import {
  RUBRIC_CATEGORIES,
  type RubricCategory,
  type RubricChecklistItem,
  type RubricClassWeights,
  rubricClassWeightsSchema,
} from './schemas/rubric-instance';

const CHECKLIST_KEYS = [
  'material_independent_checklist_1',
  'material_independent_checklist_2',
  'material_dependent_checklist_1',
  'material_dependent_checklist_2',
  'material_dependent_checklist_3',
] as const;

/**
 * PresentBench's `find_material_files`: `material.md|pdf` (md preferred), then `material_1`,
 * `material_2`, ... while the next index exists.
 */
export function findMaterialFiles(caseDir: string): string[] {
  const files: string[] = [];
  const pick = (stem: string): string | undefined =>
    ['.md', '.pdf'].map((ext) => join(caseDir, `${stem}${ext}`)).find((file) => existsSync(file));
  const unindexed = pick('material');
  if (unindexed) files.push(unindexed);
  for (let index = 1; ; index += 1) {
    const file = pick(`material_${index}`);
    if (!file) break;
    files.push(file);
  }
  return files;
}

/** Every leaf case under a PresentBench data root: a folder with materials and `generation_task/judge_prompt.json`. */
export async function findPresentBenchCases(dataRoot: string): Promise<string[]> {
  const root = resolve(dataRoot);
  const cases: string[] = [];
  async function walk(dir: string, depth: number): Promise<void> {
    if (depth > 6) return;
    const entries = await readdir(dir, { withFileTypes: true });
    for (const entry of entries.sort((a, b) => compareCodePoints(a.name, b.name))) {
      if (!entry.isDirectory() || entry.name.startsWith('.') || entry.name === 'generation_task') continue;
      const child = join(dir, entry.name);
      if (
        existsSync(join(child, 'generation_task', 'judge_prompt.json')) &&
        findMaterialFiles(child).length > 0
      ) {
        cases.push(child);
      } else {
        await walk(child, depth + 1);
      }
    }
  }
  await walk(root, 0);
  return cases;
}

/** The generated deck for a case: `<results>/<case path>/generation_task/results/slides.pdf|pptx` (pdf preferred). */
export function findPresentBenchDeck(resultsRoot: string, caseRelativePath: string): string | undefined {
  const dir = join(resultsRoot, caseRelativePath, 'generation_task', 'results');
  return ['slides.pdf', 'slides.pptx'].map((name) => join(dir, name)).find((file) => existsSync(file));
}

async function readJsonObject(file: string): Promise<Record<string, unknown>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readUtf8Text(file));
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new ValidationError(`invalid JSON (${(error as Error).message})`, { file }, { cause: error });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ValidationError('judge prompt JSON must be an object', { file });
  }
  return parsed as Record<string, unknown>;
}

/** Reads `judge_weights.yaml` (or `.json`). */
export async function readPresentBenchWeights(file: string): Promise<RubricClassWeights> {
  let parsed: unknown;
  try {
    parsed = parseYaml(await readUtf8Text(file));
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new ValidationError(`invalid YAML (${(error as Error).message})`, { file }, { cause: error });
  }
  return validateRecord(rubricClassWeightsSchema, parsed, { file });
}

/**
 * judge.py writes class keys as strings ('1'); scoring.py looks a class's weight up by that key, so
 * an unquoted `1:` (an int to PyYAML) would silently weigh 0 there. Refused, naming the key.
 */
async function refuseUnquotedClassKeys(file: string): Promise<void> {
  const typed = await readPythonYaml(file);
  if (!isPyMapping(typed)) return;
  for (const section of ['material_independent', 'material_dependent']) {
    const classes = pyGet(typed, section);
    if (!isPyMapping(classes)) continue;
    for (const [key] of pyItems(classes)) {
      if (typeof key !== 'string') {
        throw new InputError(
          `${section}: class key ${pyStr(key)} is not a string; PresentBench's judge.py writes class keys as strings ('${pyStr(key)}'), so scoring.py would give this class weight 0: quote the key`,
          { file },
        );
      }
    }
  }
}

/** Where a case's files are: its domain (checked), its prompt, the domain's prompt and weights. */
function caseFiles(dataRoot: string, caseDir: string) {
  const root = resolve(dataRoot);
  const dir = resolve(caseDir);
  const caseRelative = relative(root, dir).split(sep).join('/');
  const domain = caseRelative.split('/')[0] ?? '';
  if (!RUBRIC_CATEGORIES.includes(domain as RubricCategory)) {
    throw new InputError(`case is not under a known domain folder (${RUBRIC_CATEGORIES.join(', ')})`, {
      file: dir,
    });
  }
  const files = {
    dir,
    caseRelative,
    domain: domain as RubricCategory,
    prompt: join(dir, 'generation_task', 'judge_prompt.json'),
    common: join(root, domain, 'common_judge_prompt.json'),
    weights: join(root, domain, 'judge_weights.yaml'),
    instruction: join(dir, 'generation_task', 'instructions.md'),
  };
  // judge.py stops on both (FileNotFoundError): never an empty prompt or equal weights in silence.
  for (const required of [files.common, files.weights]) {
    if (!existsSync(required)) {
      throw new InputError(
        `missing ${basename(required)}: every PresentBench domain folder needs it (judge.py stops without it)`,
        { file: required },
      );
    }
  }
  return files;
}

type CaseFiles = ReturnType<typeof caseFiles>;

/** The case's judge prompt over the domain's, key by key (`load_judge_prompt`'s `_get_merged`). */
async function mergedJudgePrompt(files: CaseFiles) {
  const caseJson = await readJsonObject(files.prompt);
  const commonJson = await readJsonObject(files.common);
  const merged = (key: string): { value: unknown; file: string } =>
    key in caseJson
      ? { value: caseJson[key], file: files.prompt }
      : { value: commonJson[key], file: files.common };
  const prefix = (key: string): string => {
    const { value, file } = merged(key);
    if (typeof value !== 'string' || value.length === 0) {
      throw new InputError(`missing "${key}" in the case or domain judge prompt`, { file });
    }
    return value;
  };
  const list = (key: (typeof CHECKLIST_KEYS)[number]): RubricChecklistItem[] => {
    const { value, file } = merged(key);
    if (!Array.isArray(value)) {
      throw new InputError(`"${key}" must be a list (missing from the case and the domain judge prompt?)`, {
        file: value === undefined ? files.prompt : file,
      });
    }
    return value.map((entry, index) => decodePresentBenchItem(entry, { file, key: `${key}[${index}]` }));
  };
  return { prefix, list };
}

/** The five checklists; the per-slide (fidelity) items must be questions. */
function checklistsOf(
  list: (key: (typeof CHECKLIST_KEYS)[number]) => RubricChecklistItem[],
  promptFile: string,
): RubricInstance['checklists'] {
  const [fundamentals, design, completeness, correctness, fidelityItems] = CHECKLIST_KEYS.map(list) as [
    RubricChecklistItem[],
    RubricChecklistItem[],
    RubricChecklistItem[],
    RubricChecklistItem[],
    RubricChecklistItem[],
  ];
  const fidelity = fidelityItems.map((item, index) => {
    if (typeof item !== 'string') {
      throw new InputError(`material_dependent_checklist_3[${index}]: per-slide items must be questions`, {
        file: promptFile,
      });
    }
    return item;
  });
  return { fundamentals, design, completeness, correctness, fidelity };
}

/**
 * Loads one PresentBench leaf case as a rubric instance. Keys of the case's
 * `generation_task/judge_prompt.json` override the domain's `common_judge_prompt.json`, exactly as
 * `load_judge_prompt` merges them; class weights come from `<domain>/judge_weights.yaml`.
 */
export async function loadPresentBenchCase(dataRoot: string, caseDir: string): Promise<RubricInstance> {
  const files = caseFiles(dataRoot, caseDir);
  const { prefix, list } = await mergedJudgePrompt(files);
  const checklists = checklistsOf(list, files.prompt);
  const instruction = existsSync(files.instruction) ? await readUtf8Text(files.instruction) : '';
  const slideRange = slideRangeOf(checklists.fundamentals, instruction);
  if (!slideRange) {
    throw new InputError(
      'no slide range: neither a check_slide_count item nor "N-M slides" in instructions.md',
      { file: files.prompt },
    );
  }
  const weights = await readPresentBenchWeights(files.weights);
  await refuseUnquotedClassKeys(files.weights);
  const materials = findMaterialFiles(files.dir);
  if (materials.length === 0)
    throw new InputError('no material.md|pdf or material_N.md|pdf', { file: files.dir });

  return {
    id: files.caseRelative,
    category: files.domain,
    language: detectInstructionLanguage(instruction),
    materials,
    instruction,
    slideRange,
    truncateTo: truncationOf(checklists.fundamentals),
    prefixes: {
      materialIndependent: prefix('material_independent_prefix'),
      materialDependent: prefix('material_dependent_prefix'),
    },
    checklists,
    weights,
    requireSourceAttribution: detectSourceAttributionRequirement(instruction),
    origin: files.dir,
  };
}

/** judge.py truncates only when the first item is a partial with a `max_count` keyword. */
function truncationOf(fundamentals: RubricChecklistItem[]): number | null {
  const first = fundamentals[0];
  if (!first || typeof first === 'string') return null;
  const max = first.params.max_count;
  return typeof max === 'number' && Number.isInteger(max) && max > 0 ? max : null;
}

/** The instruction's range: the first item's slide-count keywords, else "N-M slides" in the instruction. */
function slideRangeOf(
  fundamentals: RubricChecklistItem[],
  instruction: string,
): { min: number; max: number } | undefined {
  const first = fundamentals[0];
  if (first && typeof first !== 'string' && first.check === 'slide_count') {
    const min = Number(first.params.min_count);
    const max = Number(first.params.max_count);
    if (Number.isInteger(min) && Number.isInteger(max) && min >= 1 && min <= max) return { min, max };
  }
  const match = /(\d+)\s*[-–~]\s*(\d+)\s*(?:\*\*)?\s*slides/i.exec(instruction);
  if (match) {
    const min = Number(match[1]);
    const max = Number(match[2]);
    if (min >= 1 && min <= max) return { min, max };
  }
  return undefined;
}
