// Deterministic inputs of PresentBench and X+SlidesBench size for the scale runs: rubric instances
// with ~20k tokens of materials and decks of ~20 slides per system; X+Slides-style source documents.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createSeededRandom, deriveSeed } from '@xsb/core';
import { writeOutlinePptx } from '@xsb/decks';

const SYLLABLES = [
  'ka',
  'lo',
  'mer',
  'ti',
  'san',
  'dor',
  'vel',
  'qui',
  'ran',
  'pe',
  'sto',
  'lin',
  'ar',
  'no',
  'be',
  'xu',
];
const COMMON = ['the', 'of', 'and', 'in', 'to', 'with', 'for', 'by', 'on', 'that', 'is', 'was', 'per'];

/** Prose of pseudo-words: stable for a label, ~4.5 bytes a token like English. */
export function prose(label: string, words: number): string {
  const random = createSeededRandom(deriveSeed(20261201, label));
  const out: string[] = [];
  let sentence = 0;
  for (let i = 0; i < words; i += 1) {
    if (random() < 0.35) out.push(COMMON[Math.floor(random() * COMMON.length)]!);
    else {
      const length = 1 + Math.floor(random() * 3);
      let word = '';
      for (let s = 0; s < length; s += 1) word += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
      out.push(random() < 0.05 ? `${Math.floor(random() * 900) + 10}` : word);
    }
    sentence += 1;
    if (sentence >= 14 + Math.floor(random() * 12)) {
      out[out.length - 1] += '.';
      sentence = 0;
    }
  }
  const text = out.join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

const CATEGORIES = ['academia', 'advertising', 'economics', 'education', 'talk'] as const;

/** PresentBench-like item counts on a 20-slide deck: 10 + 10 + 8 + 6 + 20 per-slide = 54 (1 by code). */
function checklists(id: string) {
  const items = (dimension: string, count: number) =>
    Array.from(
      { length: count },
      (_, i) =>
        `**${dimension} ${i + 1}:** ${prose(`${id}/${dimension}/${i}`, 45)} Does the deck satisfy this requirement? Answer with \\boxed{yes} or \\boxed{no}.`,
    );
  return {
    fundamentals: [
      { check: 'slide_count', params: { min_count: 15, max_count: 25 } },
      ...items('Fundamentals', 9),
    ],
    design: items('Design', 10),
    completeness: items('Completeness', 8),
    correctness: items('Correctness', 6),
    fidelity: {
      template:
        'Is all content on Slide {slide} present in the provided background materials and fully consistent with them? Answer with \\boxed{yes} or \\boxed{no}.',
    },
  };
}

/**
 * `instances` instances in xsb's format (`<category>/<id>/instance.json` + an 80 KB `material.md`,
 * ~20k tokens) and, per system, a results tree `<system>/<category>/<id>/generation_task/results/
 * slides.pptx` of 20 slides (a title slide + 19 of 5 bullets). Each deck's text differs by system.
 */
export async function synthesizePresentBench(
  root: string,
  options: { instances: number; systems: number },
): Promise<{ instancesDir: string; resultsDirs: string[] }> {
  const instancesDir = join(root, 'instances');
  const resultsDirs = Array.from({ length: options.systems }, (_, s) =>
    join(root, 'results', `system-${s + 1}`),
  );
  for (let i = 0; i < options.instances; i += 1) {
    const id = `case-${String(i + 1).padStart(3, '0')}`;
    const category = CATEGORIES[i % CATEGORIES.length]!;
    const dir = join(instancesDir, category, id);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'material.md'), `# Material of ${id}\n\n${prose(`${id}/material`, 15_400)}\n`);
    await writeFile(
      join(dir, 'instance.json'),
      JSON.stringify({
        id,
        category,
        language: 'en',
        materials: ['material.md'],
        instruction: `Create a slide deck of 15 to 25 slides from the material. ${prose(`${id}/instruction`, 60)}`,
        slide_range: { min: 15, max: 25 },
        prefixes: {
          material_independent: `You are an expert evaluator of presentation slides. The AI-generated slides are provided as File 1. ${prose(`${id}/mi`, 260)} Evaluate the slides against the requirement below and end with \\boxed{yes} or \\boxed{no}.`,
          material_dependent: `You are an expert evaluator of presentation slides. The slides are File 1; the background materials follow as File 2. ${prose(`${id}/md`, 260)} Evaluate the slides against the requirement below and end with \\boxed{yes} or \\boxed{no}.`,
        },
        checklists: checklists(id),
      }),
    );
    for (const [s, resultsDir] of resultsDirs.entries()) {
      const target = join(resultsDir, category, id, 'generation_task', 'results');
      await mkdir(target, { recursive: true });
      const label = `${id}/system-${s}`;
      await writeOutlinePptx(
        {
          title: `Deck ${id} by system ${s + 1}`,
          subtitle: prose(`${label}/subtitle`, 8),
          slides: Array.from({ length: 19 }, (_, k) => ({
            title: `Part ${k + 1}: ${prose(`${label}/t${k}`, 4)}`,
            bullets: Array.from({ length: 5 }, (_, b) => prose(`${label}/${k}/${b}`, 14)),
          })),
        },
        join(target, 'slides.pptx'),
      );
    }
  }
  return { instancesDir, resultsDirs };
}

/**
 * X+SlidesBench-like sources: `topics` cases under `<data>/sources/<case>/` (a markdown document of
 * ~`words` words and its metadata, three audiences each).
 */
export async function synthesizeXSlidesSources(
  dataDir: string,
  options: { topics: number; words: number },
): Promise<string[]> {
  const cases: string[] = [];
  for (let i = 0; i < options.topics; i += 1) {
    const caseId = `topic_${String(i + 1).padStart(3, '0')}`;
    const dir = join(dataDir, 'sources', caseId);
    await mkdir(dir, { recursive: true });
    const paragraphs = Array.from({ length: Math.ceil(options.words / 150) }, (_, p) =>
      prose(`${caseId}/p${p}`, 150),
    );
    await writeFile(join(dir, 'source.md'), `# Topic ${i + 1}\n\n${paragraphs.join('\n\n')}\n`);
    await writeFile(
      join(dir, 'source_metadata.json'),
      JSON.stringify({
        title: `Topic ${i + 1}`,
        scene: 'report',
        valid_audiences: ['decision_makers', 'learners', 'specialists'],
      }),
    );
    cases.push(caseId);
  }
  return cases;
}
