import { existsSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { hashCanonicalJson, type MetaAnchorSet, readJson, UsageError } from '@xsb/core';
import { readDeck } from '@xsb/decks';
import { judgeFromClient, type LlmClient, offlineJudge } from '@xsb/llm';
import {
  evaluateOrReuse,
  evaluationFilesFor,
  evaluationInputHash,
  type RubricEvaluation,
  type RubricInstance,
  readMaterials,
  rubricEvaluationSchema,
} from '@xsb/rubric';

type AnchorDeck = MetaAnchorSet['decks'][number];
export type AnchorRubric = NonNullable<AnchorDeck['rubric']>;

/** The instance as the judge sees it (checklists, prefixes, instruction) and its materials' text. */
export async function instanceDigest(instance: RubricInstance): Promise<string> {
  const { origin: _origin, materials, ...content } = instance;
  return hashCanonicalJson({ content, materials: await readMaterials(materials) });
}

/** Items a judge decided (a deterministic check's items are the code's, not anchors). */
export function judgedItemCount(evaluation: RubricEvaluation): number {
  return evaluation.items.filter(
    (item) =>
      item.kind === 'llm' &&
      item.decided_by_check !== true &&
      item.verdict !== 'error' &&
      item.verdict !== 'not_judged',
  ).length;
}

/**
 * Copies the deck's rubric evaluation by `judge` into the anchor folder when it is current for the
 * instance and holds an item a judge decided; otherwise the deck anchors its X+Slides verdicts only.
 */
export async function freezeDeckRubric(input: {
  deckFile: string;
  judge: string;
  instance: RubricInstance | undefined;
  anchorDir: string;
  base: string;
}): Promise<AnchorRubric | undefined> {
  const file = evaluationFilesFor(input.deckFile, input.judge).evaluation;
  if (!input.instance || !existsSync(file)) return undefined;
  const evaluation = await readJson(file, rubricEvaluationSchema);
  const current = evaluationInputHash({
    instance: input.instance,
    deck: await readDeck(input.deckFile),
    materials: await readMaterials(input.instance.materials),
    judge: { id: input.judge },
    parser: evaluation.parser,
    slideCountOn: evaluation.slide_count_on,
  });
  const items = judgedItemCount(evaluation);
  if (current !== evaluation.input_hash || items === 0) return undefined;
  const target = join(input.base, basename(file));
  await mkdir(dirname(join(input.anchorDir, target)), { recursive: true });
  await copyFile(file, join(input.anchorDir, target));
  return {
    instance_id: input.instance.id,
    instance_sha256: await instanceDigest(input.instance),
    evaluation: target,
    parser: evaluation.parser,
    slide_count_on: evaluation.slide_count_on,
    items,
  };
}

/** Re-evaluates a frozen deck's rubric with the checked judge; a changed instance or material is a usage error. */
export async function checkDeckRubric(input: {
  rubric: AnchorRubric;
  caseLabel: string;
  deckFile: string;
  instances: ReadonlyMap<string, RubricInstance>;
  setId: string;
  judge: string;
  client: LlmClient | null;
}): Promise<void> {
  const instance = input.instances.get(input.rubric.instance_id);
  if (!instance || (await instanceDigest(instance)) !== input.rubric.instance_sha256)
    throw new UsageError(
      `the rubric instance ${input.rubric.instance_id} of case ${input.caseLabel} ${instance ? 'changed' : 'is gone'} since anchor set "${input.setId}" was frozen; freeze the anchors again`,
    );
  await evaluateOrReuse(
    {
      instance,
      deck: await readDeck(input.deckFile),
      materials: await readMaterials(instance.materials),
      judge: input.client ? judgeFromClient(input.judge, input.client) : { ...offlineJudge, id: input.judge },
      parser: input.rubric.parser,
      slideCountOn: input.rubric.slide_count_on,
    },
    evaluationFilesFor(input.deckFile, input.judge),
  );
}
