import { describe, expect, it } from 'vitest';
import { filterReasonFor } from './filter-probes';
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
  furniture: [],
});

describe('LexicalProbeGenerator', () => {
  it('writes definition, number and named-term probes with verbatim sentence evidence', async () => {
    const { probes } = await new LexicalProbeGenerator().generate(input(0));
    expect(probes.find((p) => p.theme === 'definition')).toMatchObject({
      question: 'What is a transformer?',
      answer: 'a neural network that relies entirely on attention mechanisms',
      level: 2,
    });
    const number = probes.find((p) => p.answer === '91.5%')!;
    expect(number.question).toContain('an accuracy of ____ on the benchmark');
    // "reached" is a result cue; "up from" is not a relation word, so the cloze stays level 1.
    expect(number).toMatchObject({ theme: 'result', level: 1 });
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
    expect(definition.question).toBe('What is seasonal performance factor?');
    expect(definition.answer).toBe(
      'the ratio of all heat delivered over a heating season to all electricity used in that season',
    );
    expect(new GroundingIndex(text).find(definition.evidence[0]!.text)).toEqual({
      start: text.indexOf('Seasonal'),
      end: text.indexOf('season.') + 'season'.length,
      page: undefined,
    });
    expect(probes.some((p) => p.evidence[0]!.text.startsWith('Key terms'))).toBe(false);
  });
});

describe('LexicalProbeGenerator question quality', () => {
  const probesOf = async (text: string, generationIndex = 0) =>
    (await new LexicalProbeGenerator().generate(input(generationIndex, text))).probes;

  it('never blanks a value that the question would still show', async () => {
    const text = 'A COP of 3.5 means that 1 kilowatt-hour of electricity yields 3.5 kilowatt-hours of heat.';
    const answers = new Set<string>();
    for (const g of [0, 1, 2]) for (const probe of await probesOf(text, g)) answers.add(probe.answer);
    expect(answers.has('3.5')).toBe(false);
    expect(answers.has('1')).toBe(true);
    for (const g of [0, 1, 2])
      for (const probe of await probesOf(text, g))
        expect(probe.question.replace('____', '').includes(` ${probe.answer} `)).toBe(false);
  });

  it('drops inline markdown from questions and answers but keeps the evidence verbatim', async () => {
    const text = 'Raft guarantees the **Log Matching Property** for every pair of logs in the `Cluster API`.';
    const [probe] = await probesOf(text);
    expect(probe).toMatchObject({ answer: 'Log Matching Property' });
    expect(probe!.question).toBe(
      'Fill in the blank: "Raft guarantees the ____ for every pair of logs in the Cluster API."',
    );
    expect(probe!.evidence[0]!.text).toBe(text);
  });

  it('takes the theme from topic cues and marks sentences that relate facts as level 2', async () => {
    const cases: Array<[string, string, number]> = [
      ['Households paid a fixed contribution of 2,500 euros for the new installation.', 'cost', 1],
      ['Peak demand at the Millbrook substation rose from 1.9 to 2.6 megawatts last winter.', 'result', 1],
      [
        'Heating emissions fell 68 percent further in the pilot homes than in the reference homes.',
        'result',
        2,
      ],
      [
        'Second, combine heat pumps with insulation wherever walls allow it within 9 years.',
        'recommendation',
        1,
      ],
      ['Corals lost at 300 years of age cannot be replaced within a human lifetime.', 'limitation', 1],
      ['It was introduced by Diego Ongaro at Stanford University in the year 2014.', 'background', 1],
      ['Election timeouts are chosen at random between 150 and 300 milliseconds.', 'method', 1],
      ['The office will extend the programme to 1,500 further homes next year.', 'quantitative', 1],
    ];
    for (const [text, theme, level] of cases) {
      const [probe] = await probesOf(text);
      expect(probe, text).toMatchObject({ theme, level });
    }
  });

  it('skips capitalised title fragments that start with a function word', async () => {
    const text =
      'The idea was published in the paper In Search of an Understandable Consensus Algorithm by Ongaro.';
    const answers = (await probesOf(text)).map((p) => p.answer);
    expect(answers.some((answer) => /^In\b/.test(answer))).toBe(false);
  });

  it('skips table-of-contents lines and formula debris', async () => {
    const text = [
      'Contents',
      '24 2.2 Differentiable Manifolds . . . . . . . . . . . . . . . . . . . . . . . . .',
      '= 3.14 * 2 + (4 / 7) - 12 = 9.5 + 11.2 - 0.7 * 3 = 21.0 + 4 = 25.',
      'The median SPF across all 412 homes was 3.1 in the first winter.',
    ].join('\n');
    const probes = await probesOf(text);
    expect(probes.length).toBeGreaterThan(0);
    expect(probes.every((p) => p.evidence[0]!.text.startsWith('The median SPF'))).toBe(true);
    const glued = await probesOf('The gradient of the curve at this point equals 3x2 plus 2y here.');
    expect(glued.map((p) => p.answer)).toEqual([]);
  });
});

describe('LexicalProbeGenerator definition subjects', () => {
  const questionsOf = async (text: string) => {
    const questions = new Set<string>();
    for (const g of [0, 1, 2])
      for (const probe of (await new LexicalProbeGenerator().generate(input(g, text))).probes)
        questions.add(probe.question);
    return [...questions];
  };

  it('asks nothing whose subject starts with a conjunction or another function word', async () => {
    const sentences = [
      'Because ownership is a compile-time discipline, Rust needs no garbage collector.',
      'Although a mutex is a lock that serialises access, readers may still starve.',
      'In Rust a reference is a pointer that borrows a value without owning it.',
      'When a value is the last owner of its data, the memory is freed at once.',
      'Each node is a server that keeps a full copy of the replicated log.',
      'A few replicas are the minimum that a cluster of this size can tolerate losing.',
    ];
    const questions = await questionsOf(sentences.join(' '));
    expect(questions.filter((q) => q.startsWith('What is'))).toEqual([]);
    expect(questions.join('\n')).not.toMatch(/What is (because|although|in rust|when|each|a few)\b/i);
  });

  it('takes a leading sentence adverbial off the subject and asks about the rest', async () => {
    const definitions = async (text: string) =>
      (await new LexicalProbeGenerator().generate(input(0, text))).probes
        .filter((p) => p.theme === 'definition')
        .map((p) => [p.question, p.answer]);
    expect(await definitions('Thus a heat pump is a device that moves heat from the outside air.')).toEqual([
      ['What is a heat pump?', 'a device that moves heat from the outside air'],
    ]);
    expect(await definitions('In practice the SPF is the figure that determines running costs.')).toEqual([
      ['What is the SPF?', 'the figure that determines running costs'],
    ]);
    expect(await definitions('Today Raft is a consensus algorithm used by many databases.')).toEqual([
      ['What is Raft?', 'a consensus algorithm used by many databases'],
    ]);
  });
});

describe('LexicalProbeGenerator and page furniture', () => {
  it('asks nothing from running headers or footers and keeps exact offsets around them', async () => {
    const header = 'Annual Report 2024 of the Riverton Municipal Energy Office.';
    const sentence = 'The median SPF across all 412 homes was 3.1 in the first winter.';
    const footer = 'Page 2 of 9 of the report published by the Riverton City Council.';
    const text = `${header}\n${sentence}\n${footer}`;
    const furniture = [
      { page: 1, start: 0, end: header.length, kind: 'running_header' as const },
      { page: 1, start: text.indexOf(footer), end: text.length, kind: 'running_footer' as const },
    ];
    const unmarked = (await new LexicalProbeGenerator().generate(input(0, text))).probes;
    expect(unmarked.some((p) => p.evidence[0]!.text === header)).toBe(true);
    const { probes } = await new LexicalProbeGenerator().generate({ ...input(0, text), furniture });
    expect(probes.length).toBeGreaterThan(0);
    expect(probes.every((p) => p.evidence[0]!.text === sentence)).toBe(true);
    expect(probes[0]!.evidence[0]!.locator).toBe(
      `chars ${header.length + 1}-${header.length + 1 + sentence.length}`,
    );
  });
});

describe('LexicalProbeGenerator in the source language', () => {
  const generate = async (text: string, sourceLanguage: string | undefined, generationIndex = 0) =>
    (await new LexicalProbeGenerator().generate({ ...input(generationIndex, text), sourceLanguage })).probes;

  it('phrases German, French and Spanish sources with their own templates', async () => {
    const german =
      'Dieses Skript wurde im Wintersemester 2013 von Martin Thoma an der Universität geschrieben.';
    const [de] = await generate(german, 'de');
    expect(de!.question).toBe(
      'Ergänzen Sie die Lücke: „Dieses Skript wurde im Wintersemester ____ von Martin Thoma an der Universität geschrieben.“',
    );
    expect(de!.templateLanguage).toBe('de');
    const [fr] = await generate('La ville a installé 412 pompes à chaleur dans les logements sociaux.', 'fr');
    expect(fr!.question).toBe(
      'Complétez le blanc : « La ville a installé ____ pompes à chaleur dans les logements sociaux. »',
    );
    const [es] = await generate('La ciudad instaló 412 bombas de calor en las viviendas sociales.', 'es');
    expect(es!.question).toBe(
      'Complete el espacio en blanco: «La ciudad instaló ____ bombas de calor en las viviendas sociales.»',
    );
  });

  it('falls back to English templates for other or unknown languages and says so', async () => {
    const dutch = 'De gemeente plaatste 412 warmtepompen in de sociale huurwoningen van de stad.';
    for (const language of ['nl', undefined]) {
      const [probe] = await generate(dutch, language);
      expect(probe!.question.startsWith('Fill in the blank: "')).toBe(true);
      expect(probe!.templateLanguage).toBe('en');
    }
  });

  it('takes no German article, preposition or possessive as part of a name', async () => {
    const text =
      'Nach Definition ist die Quotiententopologie die feinste Topologie, für die Frau Lenz 2014 einen Beweis fand.';
    const answers = new Set<string>();
    for (const g of [0, 1, 2]) for (const p of await generate(text, 'de', g)) answers.add(p.answer);
    expect([...answers].some((answer) => /^(Nach|Die|Ihre)\b/.test(answer))).toBe(false);
    expect(answers.has('Frau Lenz')).toBe(true);
  });
});

describe('LexicalProbeGenerator and math-font debris', () => {
  const answersOf = async (text: string) => {
    const answers = new Set<string>();
    for (const g of [0, 1, 2, 3])
      for (const probe of (await new LexicalProbeGenerator().generate(input(g, text))).probes)
        answers.add(probe.answer);
    return answers;
  };

  it('builds no probe on a digit that is ≠ or ↦ read as "6 =" or "7 →"', async () => {
    // The German textbook's PDF gives "6 =" for ≠ and "7 →" for ↦ (a math font's glyphs read as text).
    const answers = await answersOf(
      [
        'Ist GLn(R) mit det(A) 6 = 0 eine kompakte Teilmenge des Raumes aller Matrizen?',
        'Die Abbildung f mit t 7 → cos t ist surjektiv auf dem Einheitskreis der Ebene.',
        'Die Folge hat einen Häufungspunkt x im Intervall [0, 1] der reellen Zahlen.',
      ].join(' '),
    );
    for (const debris of ['6', '7', '0', '1']) expect(answers.has(debris), debris).toBe(false);
  });

  it('builds no probe on an index list or on a figure number hyphenated across lines', async () => {
    const answers = await answersOf(
      [
        'Beweis: Seien die Isometrien gegeben mit ϕi(P) = P′ für alle i = 1, 2, 3 der Konstruktion.',
        'Ein Beispiel ist die in Abbil- dung 1.9 dargestellte Hilbert-Kurve aus dem ersten Kapitel.',
      ].join(' '),
    );
    for (const label of ['2', '3', '1.9']) expect(answers.has(label), label).toBe(false);
  });

  it('keeps numbers of prose and labels no remark number as a fact', async () => {
    const answers = await answersOf(
      'Für eine Triangulierung des Torus werden mindestens 14 Dreiecke benötigt, nach Bemerkung 36 der Vorlesung.',
    );
    expect(answers.has('14')).toBe(true);
    expect(answers.has('36')).toBe(false);
  });

  it('reads "for example 150" as prose, not as a pointer to Example 150', async () => {
    const answers = await answersOf(
      'Election timeouts are chosen at random from a fixed interval, for example 150 to 300 milliseconds.',
    );
    expect(answers.has('150')).toBe(true);
    expect(answers.has('300')).toBe(true);
  });

  it('keeps a number beside an ordinary hyphen or a percent sign', async () => {
    const answers = await answersOf(
      'The trial ran 12-week sessions and cut relapses by 8% in the second year.',
    );
    expect(answers.has('12')).toBe(true);
    expect(answers.has('8%')).toBe(true);
  });
});

describe('LexicalProbeGenerator grammar guard', () => {
  it('emits no "What is" question whose subject is a clause', async () => {
    const text = [
      'Three zones are distinguished: the core, the buffer and the transition area of the reserve.',
      'The data that was kept is the only record of the first heating season in the pilot.',
      'Leaders can fail is the wrong reading of the rule that the paper gives for elections.',
    ].join('\n');
    const questions = (await new LexicalProbeGenerator().generate(input(0, text))).probes.map(
      (p) => p.question,
    );
    expect(questions.filter((q) => q.startsWith('What is'))).toEqual([]);
    expect(questions.join('\n')).not.toMatch(/What is three zones are distinguished\?/);
  });

  it('still asks about a plain noun phrase', async () => {
    const text = 'Key terms\nBuffer zone: the area around the core where only light use is allowed.\n';
    const questions = (await new LexicalProbeGenerator().generate(input(0, text))).probes.map(
      (p) => p.question,
    );
    expect(questions).toContain('What is buffer zone?');
  });
});

describe('LexicalProbeGenerator and filtered sentences', () => {
  it('writes credit-line probes for the filters to count, without giving them a place among the best', async () => {
    const credits = Array.from(
      { length: 5 },
      (_, n) => `Abb. ${n + 1}.2 Torus: Jake Miller, tex.stackexchange.com/a/1185${n}/5645 aus dem Netz.`,
    );
    const fact = 'The median SPF across all 412 homes was 3.1 in the first winter.';
    const { probes } = await new LexicalProbeGenerator(1).generate(input(0, [...credits, fact].join('\n')));
    const kept = probes.filter((p) => filterReasonFor(p) === null);
    expect(kept.map((p) => p.evidence[0]!.text)).toEqual([fact]);
    expect(probes.filter((p) => filterReasonFor(p) === 'url')).toHaveLength(5);
  });
});
