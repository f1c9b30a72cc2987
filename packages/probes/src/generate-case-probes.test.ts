import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ConfigError,
  hashBytes,
  InputError,
  probeGenerationStatusSchema,
  probeSchema,
  RunLayout,
  readJson,
  readJsonlAll,
  type StageEvent,
  writeJson,
} from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import {
  loadSourceCase,
  SOURCE_EXTRACTOR_VERSION,
  sourceContextMetaFile,
  sourceContextSchema,
} from '@xsb/sources';
import { buildTextPdf, writeSourceCase } from '@xsb/sources/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { generateCaseProbes } from './generate-case-probes';
import type { GeneratedProbe } from './generated-probe';
import { LexicalProbeGenerator } from './lexical-probe-generator';
import { listProbeLanguageNotes } from './lexical-question-templates';
import { ScriptedProbeGenerator } from './testing';

const MARKDOWN = `# Solar report

Solar capacity in the region grew to 4.2 gigawatts in 2023, doubling the 2021 figure.
A feed-in tariff is a fixed price paid to small producers for every kilowatt hour they export.
The Regional Energy Agency expects storage costs to fall by 30 percent before 2027.
Grid operators warned that evening demand peaks remain the main constraint on further growth.
`;

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups) await cleanup();
  cleanups = [];
});

async function dataDirWith(file: string, content: string | Uint8Array): Promise<string> {
  const { dir, cleanup } = await makeTempDir('xsb-probes-');
  cleanups.push(cleanup);
  await writeSourceCase(dir, 'case_a', file, content, { scene: 'policy_briefing', title: 'Solar report' });
  return dir;
}

async function snapshot(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const walk = async (current: string): Promise<void> => {
    for (const entry of await readdir(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) await walk(path);
      else files[path.slice(dir.length)] = `${(await stat(path)).mtimeMs}:${await readFile(path, 'utf8')}`;
    }
  };
  await walk(dir);
  return files;
}

const probe = (question: string, answer: string, evidence: string, theme = 'result'): GeneratedProbe => ({
  question,
  answer,
  evidence: [{ locator: 'para 1', text: evidence }],
  level: 1,
  modality: 'text',
  theme,
});

describe('generateCaseProbes', () => {
  it('writes every artifact with the lexical generator, and a second run does no work', async () => {
    const dataDir = await dataDirWith('report.md', MARKDOWN);
    const layout = new RunLayout(dataDir);
    const sourceCase = await loadSourceCase(dataDir, 'case_a');
    const result = await generateCaseProbes(layout, sourceCase, { generator: new LexicalProbeGenerator() });
    expect(result.status).toBe('complete');

    const status = await readJson(layout.probeStatusFile('case_a'), probeGenerationStatusSchema);
    const bank = await readJsonlAll(layout.probesFile('case_a'), probeSchema);
    const { counts } = status;
    expect(counts.final).toBe(bank.length);
    expect(counts.generated).toBe(counts.filtered + counts.ungrounded + counts.duplicates + counts.final);
    expect(counts.duplicates).toBeGreaterThan(0); // k = 3 samples of one-target sentences coincide
    expect(status).toMatchObject({ judge: 'lexical', k: 3, chunking: { chunk_chars: 0, chunk_count: 1 } });
    expect(bank.map((p) => p.probe_id)).toEqual(bank.map((_, i) => `pb_${String(i + 1).padStart(4, '0')}`));
    expect(bank.every((p) => p.scene === 'policy_briefing' && p.source_case_id === 'case_a')).toBe(true);
    expect(bank[0]!.metadata).toMatchObject({ source_chunk_index: 0, source_chunk_count: 1 });
    expect(await readFile(layout.sourceContextFile('case_a'), 'utf8')).toContain('4.2 gigawatts');
    expect((await readdir(layout.rawChunkDir('case_a', 0))).sort()).toEqual([
      'generation_00.json',
      'generation_01.json',
      'generation_02.json',
    ]);

    const before = await snapshot(dataDir);
    const again = await generateCaseProbes(layout, sourceCase, { generator: new LexicalProbeGenerator() });
    expect(again.status).toBe('skipped');
    expect(await snapshot(dataDir)).toEqual(before);
  });

  it('regenerates byte-identical artifacts with --force', async () => {
    const dataDir = await dataDirWith('report.md', MARKDOWN);
    const layout = new RunLayout(dataDir);
    const sourceCase = await loadSourceCase(dataDir, 'case_a');
    await generateCaseProbes(layout, sourceCase, { generator: new LexicalProbeGenerator() });
    const strip = (files: Record<string, string>) =>
      Object.fromEntries(Object.entries(files).map(([k, v]) => [k, v.slice(v.indexOf(':') + 1)]));
    const first = strip(await snapshot(dataDir));
    const forced = await generateCaseProbes(layout, sourceCase, {
      generator: new LexicalProbeGenerator(),
      force: true,
    });
    expect(forced.status).toBe('complete');
    expect(strip(await snapshot(dataDir))).toEqual(first);
  });

  it('computes union, filters, grounding and dedup counts over chunks x k samples by hand', async () => {
    const dataDir = await dataDirWith('report.md', MARKDOWN);
    const layout = new RunLayout(dataDir);
    const sourceCase = await loadSourceCase(dataDir, 'case_a');
    const capacity = probe(
      'What solar capacity did the region reach in 2023?',
      '4.2 gigawatts',
      'Solar capacity in the region grew to 4.2 gigawatts in 2023',
    );
    const capacityParaphrase = probe(
      'How much solar capacity was installed in the region by 2023?',
      '4.2 gigawatts',
      'solar capacity in the region grew to 4.2 GIGAWATTS in 2023,',
    );
    const storage = probe(
      'By how much does the agency expect storage costs to fall?',
      '30 percent before 2027',
      'The Regional Energy Agency expects storage costs to fall by 30 percent before 2027.',
    );
    const cited = probe('Which works are cited for the tariff?', 'none', 'A feed-in tariff is a fixed price');
    const pointer = probe('Where is the growth shown?', 'Figure 2', 'Solar capacity in the region grew');
    // One real quote does not ground a probe whose other quote is invented.
    const invented = {
      ...probe('What did wind reach?', '3 gigawatts', 'Wind capacity reached 3 gigawatts'),
      evidence: [
        { locator: 'para 1', text: 'Solar capacity in the region grew' },
        { locator: 'para 2', text: 'Wind capacity reached 3 gigawatts' },
      ],
    };
    const generator = new ScriptedProbeGenerator({
      '0:0': [capacity, cited],
      '0:1': [capacity, pointer],
      '0:2': [invented],
      '1:0': [capacityParaphrase],
      '1:2': [storage],
    });
    const result = await generateCaseProbes(layout, sourceCase, {
      generator,
      chunkChars: 200,
      chunkOverlap: 50,
    });
    expect(result.status).toBe('complete');
    // Source of 392 characters: windows [0,200), [150,350), [300,392).
    expect(generator.calls).toHaveLength(9);
    expect(generator.calls[0]!.chunkText.startsWith('[Source chunk chars 0-200]\n')).toBe(true);
    const status = await readJson(layout.probeStatusFile('case_a'), probeGenerationStatusSchema);
    expect(status.counts).toMatchObject({
      generated: 7,
      filtered: 2,
      ungrounded: 1,
      duplicates: 2,
      final: 2,
    });
    expect(status.chunking).toEqual({
      source_chars: 1_000_000,
      chunk_chars: 200,
      chunk_overlap: 50,
      chunk_count: 3,
    });
    const bank = await readJsonlAll(layout.probesFile('case_a'), probeSchema);
    expect(bank.map((p) => p.answer)).toEqual(['4.2 gigawatts', '30 percent before 2027']);
    expect(bank[0]!.metadata.merged_duplicates).toBe(2);
    expect(bank[1]).toMatchObject({
      probe_id: 'pb_0002',
      metadata: { source_chunk_index: 1, source_chunk_count: 3 },
    });
    const raw = JSON.parse(
      await readFile(join(layout.rawChunkDir('case_a', 1), 'generation_02.json'), 'utf8'),
    );
    expect(raw.exchanges[0].response).toEqual([storage]);
  });

  it('cites PDF pages in evidence locators', async () => {
    const pdf = buildTextPdf([
      ['Solar capacity in the region grew to 4.2 gigawatts in 2023.'],
      ['The Regional Energy Agency expects storage costs to fall by 30 percent.'],
    ]);
    const dataDir = await dataDirWith('report.pdf', pdf);
    const layout = new RunLayout(dataDir);
    const sourceCase = await loadSourceCase(dataDir, 'case_a');
    const generator = new ScriptedProbeGenerator({
      '0:0': [
        probe(
          'What storage cost fall is expected?',
          '30 percent',
          'expects storage costs to fall by 30 percent',
        ),
      ],
    });
    await generateCaseProbes(layout, sourceCase, { generator });
    const bank = await readJsonlAll(layout.probesFile('case_a'), probeSchema);
    expect(bank[0]!.evidence[0]!.locator).toBe('page 2');
  });

  it('filters probes that quote only page furniture and keeps the page locators of the rest', async () => {
    const body = [
      ['Solar capacity in the region grew to 4.2 gigawatts in 2023.'],
      ['The Regional Energy Agency expects storage costs to fall by 30 percent.'],
      ['Grid operators warned that evening demand peaks remain the main constraint.'],
    ];
    const pdf = buildTextPdf(
      body.map((lines, index) => ['Riverton Solar Review', ...lines, String(index + 1)]),
    );
    const dataDir = await dataDirWith('report.pdf', pdf);
    const layout = new RunLayout(dataDir);
    const sourceCase = await loadSourceCase(dataDir, 'case_a');
    const generator = new ScriptedProbeGenerator({
      '0:0': [
        probe('What is the title of the review?', 'Riverton Solar Review', 'Riverton Solar Review'),
        probe('What page number is printed last?', '3', '3'),
        probe(
          'What storage cost fall is expected?',
          '30 percent',
          'expects storage costs to fall by 30 percent',
        ),
      ],
    });
    await generateCaseProbes(layout, sourceCase, { generator });
    const status = await readJson(layout.probeStatusFile('case_a'), probeGenerationStatusSchema);
    expect(status.counts).toMatchObject({
      generated: 3,
      filtered: 2,
      ungrounded: 0,
      final: 1,
      filtered_by_reason: { citation_list: 0, reference_only: 0, page_furniture: 2 },
    });
    expect(status).toMatchObject({ page_furniture_lines: 6 });
    const bank = await readJsonlAll(layout.probesFile('case_a'), probeSchema);
    expect(bank.map((p) => [p.answer, p.evidence[0]!.locator])).toEqual([['30 percent', 'page 2']]);

    // The lexical generator reads around the furniture: none of its probes quotes the running title.
    await generateCaseProbes(layout, sourceCase, { generator: new LexicalProbeGenerator(), force: true });
    const lexical = await readJsonlAll(layout.probesFile('case_a'), probeSchema);
    expect(lexical.length).toBeGreaterThan(0);
    expect(lexical.some((p) => p.evidence.some((e) => e.text.includes('Riverton Solar Review')))).toBe(false);
  });

  it('rebuilds the bank when the page furniture changes, and after an upgrade from older rules', async () => {
    const pdf = buildTextPdf(
      [1, 2, 3].map((n) => [
        'Riverton Solar Review',
        `Solar capacity grew by ${n * 10} percent in year ${n}.`,
        `${n}`,
      ]),
    );
    const dataDir = await dataDirWith('report.pdf', pdf);
    const layout = new RunLayout(dataDir);
    const sourceCase = await loadSourceCase(dataDir, 'case_a');
    const generator = new LexicalProbeGenerator();
    expect((await generateCaseProbes(layout, sourceCase, { generator })).status).toBe('complete');
    expect((await generateCaseProbes(layout, sourceCase, { generator })).status).toBe('skipped');
    const metaFile = sourceContextMetaFile(layout, 'case_a');
    const current = await readJson(metaFile, sourceContextSchema);
    expect(current.page_furniture).toHaveLength(6);

    // Same text, other furniture marks (as another stage 1 run could record): the bank is redone.
    await writeJson(metaFile, sourceContextSchema, {
      ...current,
      page_furniture: current.page_furniture.slice(2),
    });
    expect((await generateCaseProbes(layout, sourceCase, { generator })).status).toBe('complete');

    // What the previous version left: a context record without extractor_version or furniture, and a
    // bank whose settings had neither bank format 3 nor the furniture hash.
    const { extractor_version: _, ...older } = current;
    await writeJson(metaFile, sourceContextSchema, { ...older, page_furniture: [] });
    const statusFile = layout.probeStatusFile('case_a');
    const status = await readJson(statusFile, probeGenerationStatusSchema);
    const { page_furniture_sha256: __, ...oldSettings } = status.settings as Record<string, unknown>;
    await writeJson(statusFile, probeGenerationStatusSchema, {
      ...status,
      settings: { ...oldSettings, bank_format: 2, generator_fingerprint: 'lexical-v3:max40' },
    });
    expect(older.text_sha256).toBe(hashBytes(await readFile(layout.sourceContextFile('case_a'), 'utf8')));
    expect((await generateCaseProbes(layout, sourceCase, { generator })).status).toBe('complete');
    expect(await readJson(metaFile, sourceContextSchema)).toMatchObject({
      extractor_version: SOURCE_EXTRACTOR_VERSION,
      page_furniture: current.page_furniture,
    });
    expect((await generateCaseProbes(layout, sourceCase, { generator })).status).toBe('skipped');
  });

  it('gives a quote without a locator the exact source span it was found at', async () => {
    const dataDir = await dataDirWith(
      'report.md',
      'Intro line.\n\nSolar capacity in the region grew to 4.2  gigawatts in 2023.',
    );
    const layout = new RunLayout(dataDir);
    const sourceCase = await loadSourceCase(dataDir, 'case_a');
    const quote = 'solar capacity in the region grew to 4.2 gigawatts'; // case and spacing differ
    const generator = new ScriptedProbeGenerator({
      '0:0': [
        {
          ...probe('What capacity did solar reach?', '4.2 gigawatts', quote),
          evidence: [{ locator: '', text: quote }],
        },
      ],
    });
    await generateCaseProbes(layout, sourceCase, { generator, k: 1 });
    const [only] = await readJsonlAll(layout.probesFile('case_a'), probeSchema);
    const [, start, end] = /^chars (\d+)-(\d+)$/.exec(only!.evidence[0]!.locator)!.map(Number);
    const text = await readFile(layout.sourceContextFile('case_a'), 'utf8');
    expect(text.slice(start, end)).toBe('Solar capacity in the region grew to 4.2  gigawatts');
  });

  it('fails the case (status failed, no bank) when a generation fails', async () => {
    const dataDir = await dataDirWith('report.md', MARKDOWN);
    const layout = new RunLayout(dataDir);
    const sourceCase = await loadSourceCase(dataDir, 'case_a');
    const generator = new ScriptedProbeGenerator({ '0:1': new Error('provider down') });
    const result = await generateCaseProbes(layout, sourceCase, { generator });
    expect(result).toMatchObject({ status: 'failed', error: 'provider down' });
    const status = await readJson(layout.probeStatusFile('case_a'), probeGenerationStatusSchema);
    expect(status.status).toBe('failed');
    await expect(stat(layout.probesFile('case_a'))).rejects.toThrow();
    const raw = JSON.parse(
      await readFile(join(layout.rawChunkDir('case_a', 0), 'generation_01.json'), 'utf8'),
    );
    expect(raw.error).toBe('provider down');
  });

  it('gives the same ids and contents whichever chunk or sample produced each probe', async () => {
    const dataDir = await dataDirWith('report.md', MARKDOWN);
    const layout = new RunLayout(dataDir);
    const sourceCase = await loadSourceCase(dataDir, 'case_a');
    const a = probe('What capacity was reached?', '4.2 gigawatts', 'grew to 4.2 gigawatts in 2023');
    const b = probe(
      'What is a feed-in tariff?',
      'a fixed price paid to small producers',
      'A feed-in tariff is a fixed price',
    );
    const c = probe('How far will storage costs fall?', '30 percent', 'storage costs to fall by 30 percent');
    const bankOf = async (script: Record<string, GeneratedProbe[]>) => {
      await generateCaseProbes(layout, sourceCase, {
        generator: new ScriptedProbeGenerator(script),
        force: true,
      });
      const bank = await readJsonlAll(layout.probesFile('case_a'), probeSchema);
      return bank.map((p) => [p.probe_id, p.question, p.answer]);
    };
    const first = await bankOf({ '0:0': [a, b], '0:1': [c] });
    expect(first.map(([id, question]) => [id, question])).toEqual([
      ['pb_0001', a.question],
      ['pb_0002', b.question],
      ['pb_0003', c.question],
    ]);
    expect(await bankOf({ '0:0': [c], '0:2': [b, a] })).toEqual(first);
  });
});

describe('generateCaseProbes on a German source', () => {
  const GERMAN = `# Topologie

Dieses Skript wurde im Wintersemester 2013 von Martin Thoma an der Universität Karlsruhe geschrieben.
Für eine Triangulierung des Torus werden mindestens 14 Dreiecke benötigt, wie man leicht nachzählt.
Die Kugeloberfläche lässt sich durch Strecken und Stauchen in 6 Schritten zur Würfeloberfläche umformen.
Die Abbildung stammt von Charles Staats, tex.stackexchange.com/a/149991/5645 im Netz.
Er kann in „Elementare Differentialgeometrie“ von Christian Bär, ISBN 978-3-11-022458-0, nachgelesen werden.
`;

  it('asks in German, marks the template language and counts URL and ISBN filters', async () => {
    const dataDir = await dataDirWith('skript.md', GERMAN);
    const layout = new RunLayout(dataDir);
    const sourceCase = await loadSourceCase(dataDir, 'case_a');
    await generateCaseProbes(layout, sourceCase, { generator: new LexicalProbeGenerator() });
    const status = await readJson(layout.probeStatusFile('case_a'), probeGenerationStatusSchema);
    const bank = await readJsonlAll(layout.probesFile('case_a'), probeSchema);
    expect(bank.length).toBeGreaterThan(0);
    expect(bank.every((p) => p.question.startsWith('Ergänzen Sie die Lücke: „'))).toBe(true);
    expect(bank.every((p) => p.metadata.template_language === 'de')).toBe(true);
    expect(status).toMatchObject({ source_language: 'de', template_languages: ['de'] });
    const byReason = status.counts.filtered_by_reason as Record<string, number>;
    expect(byReason.url).toBeGreaterThan(0);
    expect(byReason.isbn).toBeGreaterThan(0);
    expect(Object.values(byReason).reduce((sum, n) => sum + n, 0)).toBe(status.counts.filtered);
    expect(bank.some((p) => /stackexchange|978/.test(p.question))).toBe(false);
  });
});

describe('generateCaseProbes on a source without question templates', () => {
  it('uses English templates, marks each probe and lists the case in the language notes', async () => {
    const dutch = [
      'De gemeente Riverton plaatste in 2023 precies 412 warmtepompen in sociale huurwoningen van de stad.',
      'De gemiddelde seizoensprestatiefactor van die warmtepompen lag in de eerste winter op 3,1 volgens de metingen.',
      'De bewoners betaalden een vaste bijdrage van 2500 euro voor de installatie van de nieuwe warmtepomp.',
    ].join('\n');
    const dataDir = await dataDirWith('rapport.md', dutch);
    const layout = new RunLayout(dataDir);
    const sourceCase = await loadSourceCase(dataDir, 'case_a');
    await generateCaseProbes(layout, sourceCase, { generator: new LexicalProbeGenerator() });
    const status = await readJson(layout.probeStatusFile('case_a'), probeGenerationStatusSchema);
    const bank = await readJsonlAll(layout.probesFile('case_a'), probeSchema);
    expect(status).toMatchObject({ source_language: 'nl', template_languages: ['en'] });
    expect(bank.length).toBeGreaterThan(0);
    expect(bank.every((p) => p.metadata.template_language === 'en')).toBe(true);
    expect(await listProbeLanguageNotes(layout)).toEqual([
      'case case_a: questions use en templates (no templates for "nl"; metadata.template_language says so per probe)',
    ]);
  });
});

describe('probe generation events', () => {
  it('emits one unit per case: done when built, reused when finished, failed with its error code', async () => {
    const dataDir = await dataDirWith('report.md', MARKDOWN);
    const layout = new RunLayout(dataDir);
    const sourceCase = await loadSourceCase(dataDir, 'case_a');
    const events: StageEvent[] = [];
    const options = {
      generator: new LexicalProbeGenerator(),
      k: 2,
      onEvent: (e: StageEvent) => events.push(e),
    };
    await generateCaseProbes(layout, sourceCase, options);
    expect(events).toEqual([
      { type: 'stage-started', stage: 'probes', total: 1, unit: 'cases' },
      { type: 'unit-done', stage: 'probes', id: 'case_a', status: 'done', done: 1, total: 1 },
      { type: 'stage-finished', stage: 'probes', total: 1, done: 1, reused: 0, failed: 0 },
    ]);
    events.length = 0;
    await generateCaseProbes(layout, sourceCase, options);
    expect(events[1]).toMatchObject({ type: 'unit-done', status: 'reused' });
    events.length = 0;
    const failing = new ScriptedProbeGenerator({ '0:0': new InputError('no list') });
    await generateCaseProbes(layout, sourceCase, { generator: failing, onEvent: (e) => events.push(e) });
    expect(events[1]).toMatchObject({ type: 'unit-failed', id: 'case_a', message: 'no list' });
    expect(events[2]).toMatchObject({ type: 'stage-finished', failed: 1 });
  });

  it('a run that waited for the case lock while another built the bank reuses it, no second generation', async () => {
    const dataDir = await dataDirWith('report.md', MARKDOWN);
    const layout = new RunLayout(dataDir);
    const sourceCase = await loadSourceCase(dataDir, 'case_a');
    const generator = new ScriptedProbeGenerator({});
    const [first, second] = await Promise.all([
      generateCaseProbes(layout, sourceCase, { generator }),
      generateCaseProbes(layout, sourceCase, { generator }),
    ]);
    expect([first!.status, second!.status].sort()).toEqual(['complete', 'skipped']);
    expect(generator.calls).toHaveLength(3);
  });

  it('stops on an error that would fail every case alike, after writing the failed status', async () => {
    const dataDir = await dataDirWith('report.md', MARKDOWN);
    const layout = new RunLayout(dataDir);
    const sourceCase = await loadSourceCase(dataDir, 'case_a');
    const generator = new ScriptedProbeGenerator({ '0:0': new ConfigError('judge needs a key') });
    await expect(generateCaseProbes(layout, sourceCase, { generator })).rejects.toThrow('judge needs a key');
    const status = await readJson(layout.probeStatusFile('case_a'), probeGenerationStatusSchema);
    expect(status).toMatchObject({ status: 'failed', errors: ['judge needs a key'] });
  });
});
