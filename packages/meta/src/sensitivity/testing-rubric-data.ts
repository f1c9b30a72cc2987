import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RunLayout } from '@xsb/core';
import { buildTestPptx } from '@xsb/decks/testing';

/** Questions per rubric dimension in the test instances. */
export const TEST_ITEMS_PER_DIMENSION = 5;

/**
 * A data folder with one run of small PPTX decks (a title slide and five content slides each) and an
 * xsb rubric instance per case (`<data>/rubric/<case>/instance.json`, all items questions for the
 * judge), enough for the rubric and holistic evaluators; no sources, so no X+Slides stage.
 */
export async function writeRubricTestData(dataDir: string, run: string, cases: number): Promise<string[]> {
  const layout = new RunLayout(dataDir);
  const labels: string[] = [];
  for (let index = 0; index < cases; index += 1) {
    const label = `case${String(index).padStart(2, '0')}`;
    labels.push(label);
    const deckDir = layout.deckDir({
      run,
      system: 'gen',
      condition: 'audience_agnostic',
      audience: 'all',
      caseLabel: label,
    });
    await mkdir(deckDir, { recursive: true });
    const slides = [{ fileNumber: 1, title: `Report ${index}` }];
    for (let slide = 2; slide <= 6; slide += 1) {
      slides.push({
        fileNumber: slide,
        title: `Part ${slide} of report ${index}`,
        bullets: [
          `Site ${index} measured ${10 * slide + index} units in week ${slide}.`,
          `The team of ${slide + 2} people reviewed part ${slide}.`,
        ],
      } as never);
    }
    await writeFile(join(deckDir, `${label}.pptx`), buildTestPptx({ slides }));
    const rubricDir = join(dataDir, 'rubric', label);
    await mkdir(rubricDir, { recursive: true });
    await writeFile(
      join(rubricDir, 'material.md'),
      `# Report ${index}\n\nEvery site measured its units weekly.\n`,
    );
    const questions = (name: string) =>
      Array.from(
        { length: TEST_ITEMS_PER_DIMENSION },
        (_, item) => `**${name} ${item + 1}**\n* Does the deck meet requirement ${item + 1} of ${name}?`,
      );
    await writeFile(
      join(rubricDir, 'instance.json'),
      JSON.stringify({
        id: label,
        category: 'talk',
        language: 'en',
        materials: ['material.md'],
        instruction: 'Make a deck of 2 to 10 slides from the report.',
        slide_range: { min: 2, max: 10 },
        prefixes: {
          material_independent: 'Evaluate the slides. Answer \\boxed{yes} or \\boxed{no}.\n---',
          material_dependent:
            'Evaluate the slides (File 1) against the material. Answer \\boxed{yes} or \\boxed{no}.\n---',
        },
        checklists: {
          fundamentals: questions('Fundamentals'),
          design: questions('Design'),
          completeness: questions('Completeness'),
          correctness: questions('Correctness'),
          fidelity: questions('Fidelity'),
        },
      }),
    );
  }
  return labels;
}
