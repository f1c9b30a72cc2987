import { describe, expect, it } from 'vitest';
import type { GenerationInput } from './generated-probe';
import { GroundingIndex } from './ground-evidence';
import { LexicalProbeGenerator } from './lexical-probe-generator';

const body = [
  'A transformer is a neural network that relies entirely on attention mechanisms.',
  'The new model reached an accuracy of 91.5% on the benchmark, up from 84 percent in 2019.',
  'Researchers at the Allen Institute for AI released the dataset under an open license.',
  'Short line.',
  'It is a method that nobody can name without context at all.',
].join(' ');

const input = (generationIndex: number, text = body): GenerationInput => ({
  caseId: 'c',
  scene: 's',
  title: 't',
  chunkText: `[Source chunk chars 0-${text.length}]\n${text}`,
  chunkBody: text,
  chunkStart: 0,
  chunkIndex: 0,
  chunkCount: 1,
  generationIndex,
  k: 3,
  pages: [],
});

describe('LexicalProbeGenerator', () => {
  it('writes definition, number and named-term probes with verbatim sentence evidence', async () => {
    const { probes } = await new LexicalProbeGenerator().generate(input(0));
    expect(probes.find((p) => p.theme === 'definition')).toMatchObject({
      question: 'What is a transformer?',
      answer: 'a neural network that relies entirely on attention mechanisms',
      level: 2,
    });
    const number = probes.find((p) => p.theme === 'quantitative')!;
    expect(number.answer).toBe('91.5%');
    expect(number.question).toContain('an accuracy of ____ on the benchmark');
    const entity = probes.find((p) => p.theme === 'entity')!;
    expect(entity.answer).toBe('Allen Institute for AI');
    const index = new GroundingIndex(body);
    for (const probe of probes)
      for (const item of probe.evidence) expect(index.find(item.text)).not.toBeNull();
    expect(probes.some((p) => p.question.includes('nobody can name'))).toBe(false);
  });

  it('is deterministic and rotates targets across the k samples', async () => {
    const generator = new LexicalProbeGenerator();
    const first = await generator.generate(input(0));
    expect(await generator.generate(input(0))).toEqual(first);
    const second = await generator.generate(input(1));
    const numbersAt = (probes: typeof first.probes) =>
      probes.filter((p) => p.evidence[0]!.text.includes('91.5%')).map((p) => p.answer);
    expect(numbersAt(first.probes)).toEqual(['91.5%']);
    expect(numbersAt(second.probes)).toEqual(['84 percent']);
  });

  it('keeps only the most informative sentences when capped', async () => {
    const { probes } = await new LexicalProbeGenerator(1).generate(input(0));
    expect(probes).toHaveLength(1);
    expect(probes[0]!.evidence[0]!.text).toContain('91.5%');
  });

  it('cites pages for PDF sources', async () => {
    const { probes } = await new LexicalProbeGenerator().generate({
      ...input(0),
      pages: [
        { page: 1, start: 0, end: 90 },
        { page: 2, start: 90, end: body.length },
      ],
    });
    expect(probes.map((p) => p.evidence[0]!.locator)).toContain('page 2');
    expect(probes[0]!.evidence[0]!.locator).toBe('page 1');
  });
});

describe('LexicalProbeGenerator glossary and wrapped lines', () => {
  it('reads glossary definitions and joins wrapped lines (same length, exact offsets)', async () => {
    const text =
      'Key terms\nSeasonal performance factor (SPF): the ratio of all heat delivered over a heating season to\nall electricity used in that season.\n';
    const { probes } = await new LexicalProbeGenerator().generate(input(0, text));
    const definition = probes.find((p) => p.theme === 'definition')!;
    expect(definition.question).toBe('What is Seasonal performance factor?');
    expect(definition.answer).toBe(
      'the ratio of all heat delivered over a heating season to all electricity used in that season',
    );
    expect(new GroundingIndex(text).find(definition.evidence[0]!.text)).toEqual({
      start: text.indexOf('Seasonal'),
      page: undefined,
    });
    expect(probes.some((p) => p.evidence[0]!.text.startsWith('Key terms'))).toBe(false);
  });
});
