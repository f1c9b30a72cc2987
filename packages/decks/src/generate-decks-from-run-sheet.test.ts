import { existsSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { acquireDirectoryLock, callsPerStage, RunLayout, readJson, UsageError } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { createLlmClient, describeJudge, judgeFromClient, offlineJudge } from '@xsb/llm';
import { type FakeLlmServer, fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deckGenerationWorkList, generateDecksFromRunSheet } from './generate-decks-from-run-sheet';
import { readDeck } from './read-deck';
import { readRunSheet } from './run-sheet';
import { deckBatchSummarySchema, deckRowStatusSchema } from './schemas/deck-run-status';

const SOURCE = `# Heat pumps in Riverton

## Why the pilot ran
Heating burns 41 percent of household energy in Riverton and most homes still use oil boilers.
The council funded a pilot to test whether air-source heat pumps cut bills and emissions in cold winters.

## Results
The 120 pilot homes used 38 percent less heating energy than matched homes with boilers.
Average annual bills fell by 410 dollars per home after the switch to heat pumps.
Installers reported that older homes needed insulation upgrades before the pumps performed well.

| Site | Homes | Savings % |
| --- | --- | --- |
| North | 70 | 35 |
| South | 50 | 42 |
| East | 40 | 38 |

## Risks
Grid operators warned that peak winter demand could rise by 6 percent if every home converted at once.
Upfront costs of 9000 dollars per home remain the main barrier for low-income owners.
`;

const PROFILES = [
  {
    id: 'decision_makers',
    description: 'Executives who need costs, risks and recommendations with headline numbers.',
  },
  { id: 'learners', description: 'Students who need concepts, definitions and examples explained simply.' },
];

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-decks-gen-'));
  await writeFile(join(dir, 'source.md'), SOURCE);
});
afterEach(async () => cleanup());

async function writeSheet(lines: string[]): Promise<string> {
  const file = join(dir, 'run_sheet.csv');
  await writeFile(
    file,
    ['system,condition,audience,case_label,source_document,prompt_path,output_deck_path', ...lines].join(
      '\n',
    ),
  );
  return file;
}

describe('generateDecksFromRunSheet with the lexical planner', () => {
  it("plans a user profile's conditioned deck with the profile's own lexical preferences", async () => {
    const sheetFile = await writeSheet([
      'xsb-baseline,audience_conditioned,treasurers,heat_pumps,source.md,,',
    ]);
    const description = 'Municipal treasurers who approve budgets for housing programmes.';
    const costFocused = {
      levels: [0.3, 0.3, 0.3] as [0.3, 0.3, 0.3],
      preferredThemes: ['cost'],
      avoidedThemes: ['result', 'background', 'limitation', 'method', 'quantitative', 'entity', 'definition'],
      preferredModalities: [],
    };
    const bullets = async (
      run: string,
      profile: { id: string; description: string; lexical?: typeof costFocused },
    ) => {
      const layout = new RunLayout(join(dir, 'data'));
      await generateDecksFromRunSheet({
        sheet: await readRunSheet(sheetFile),
        layout,
        run,
        judge: offlineJudge,
        audienceProfiles: [profile],
      });
      const outline = JSON.parse(
        await readFile(
          join(
            layout.deckDir({
              run,
              system: 'xsb-baseline',
              condition: 'audience_conditioned',
              audience: 'treasurers',
              caseLabel: 'heat_pumps',
            }),
            'deck_outline.json',
          ),
          'utf8',
        ),
      ) as { slides: Array<{ bullets?: string[] }> };
      return outline.slides.flatMap((slide) => slide.bullets ?? []).join('\n');
    };
    const withPreferences = await bullets('prefs', { id: 'treasurers', description, lexical: costFocused });
    const withoutPreferences = await bullets('plain', { id: 'treasurers', description });
    expect(withPreferences).not.toEqual(withoutPreferences);
    expect(withPreferences).toContain('410 dollars');
    expect(withPreferences).not.toContain('38 percent less heating energy');
  });

  it('writes real PPTX decks that read back with the planned slides, skips them on re-run, redoes them with force', async () => {
    const sheetFile = await writeSheet([
      'xsb-baseline,audience_conditioned,decision_makers,heat_pumps,source.md,,',
      'xsb-baseline,audience_agnostic,general,heat_pumps,source.md,,',
    ]);
    const layout = new RunLayout(join(dir, 'data'));
    const options = {
      sheet: await readRunSheet(sheetFile),
      layout,
      run: 'demo',
      judge: offlineJudge,
      audienceProfiles: PROFILES,
    };
    const summary = await generateDecksFromRunSheet(options);
    expect(summary).toMatchObject({ done: 2, failed: 0, skipped: 0, rows_selected: 2 });

    const deckDir = layout.deckDir({
      run: 'demo',
      system: 'xsb-baseline',
      condition: 'audience_conditioned',
      audience: 'decision_makers',
      caseLabel: 'heat_pumps',
    });
    const outline = JSON.parse(await readFile(join(deckDir, 'deck_outline.json'), 'utf8'));
    const deck = await readDeck(join(deckDir, 'heat_pumps.pptx'));
    expect(deck.slide_count).toBe(outline.slides.length + 1);
    expect(deck.slides[0]?.title).toBe('Heat pumps in Riverton');
    expect(deck.slides[0]?.visible_text).toContain('For decision makers');
    expect(deck.slides.slice(1).map((slide) => slide.title)).toEqual(
      outline.slides.map((s: { title: string }) => s.title),
    );
    expect(outline.slides.some((planned: { bullets: string[] }) => planned.bullets.length > 0)).toBe(true);
    for (const [index, planned] of outline.slides.entries()) {
      const visible = deck.slides[index + 1]?.visible_text ?? '';
      for (const bullet of planned.bullets as string[]) expect(visible).toContain(bullet);
    }
    const kinds = deck.slides.flatMap((slide) => slide.elements.map((element) => element.kind));
    expect(kinds).toContain('table');
    expect(kinds).toContain('chart');
    expect(deck.slides.map((slide) => slide.visible_text).join('\n')).toContain('North | 70 | 35');
    const bodySizes = deck.slides.flatMap((slide) => slide.elements.flatMap((element) => element.font_sizes));
    expect(Math.min(...bodySizes)).toBeGreaterThanOrEqual(14);
    expect((await readJson(join(deckDir, 'deck_status.json'), deckRowStatusSchema)).status).toBe('done');

    const before = (await stat(join(deckDir, 'heat_pumps.pptx'))).mtimeMs;
    const again = await generateDecksFromRunSheet(options);
    expect(again).toMatchObject({ done: 0, skipped: 2 });
    expect((await stat(join(deckDir, 'heat_pumps.pptx'))).mtimeMs).toBe(before);

    const bytes = await readFile(join(deckDir, 'heat_pumps.pptx'));
    const forced = await generateDecksFromRunSheet({ ...options, force: true });
    expect(forced.done).toBe(2);
    expect((await readFile(join(deckDir, 'heat_pumps.pptx'))).equals(bytes)).toBe(true);
    const summaryFile = join(layout.decksRoot('demo'), 'batch_summary.json');
    expect((await readJson(summaryFile, deckBatchSummarySchema)).done).toBe(2);
  });

  it('fails a row fast when another process holds its deck folder', async () => {
    const sheetFile = await writeSheet(['xsb-baseline,audience_agnostic,all,heat_pumps,source.md,,']);
    const layout = new RunLayout(join(dir, 'data'));
    const deckDir = layout.deckDir({
      run: 'demo',
      system: 'xsb-baseline',
      condition: 'audience_agnostic',
      audience: 'all',
      caseLabel: 'heat_pumps',
    });
    const lock = await acquireDirectoryLock(deckDir);
    try {
      const summary = await generateDecksFromRunSheet({
        sheet: await readRunSheet(sheetFile),
        layout,
        run: 'demo',
        judge: offlineJudge,
        audienceProfiles: PROFILES,
      });
      expect(summary.failed).toBe(1);
      expect(summary.rows[0]?.message).toMatch(/is locked by pid \d+/);
    } finally {
      await lock.release();
    }
  });

  it('refuses a sheet with any bad row before writing anything, listing every problem by line and column', async () => {
    const sheetFile = await writeSheet([
      'xsb-baseline,audience_conditioned,learners,heat_pumps,source.md,,',
      'xsb-baseline,sideways,learners,heat_pumps,source.md,,',
      'xsb-baseline,audience_conditioned,learners,../escape,source.md,,',
      'xsb-baseline,audience_conditioned,learners,no_source,missing.md,,',
      'slidetailor,audience_agnostic,general,heat_pumps,source.md,,',
      'xsb-baseline,audience_conditioned,nobody,heat_pumps,source.md,,',
      'xsb-baseline,audience_agnostic,all,short_row,source.md',
    ]);
    const sheet = await readRunSheet(sheetFile);
    expect(sheet.invalid.map((row) => row.line)).toEqual([3, 4, 8]);
    expect(sheet.invalid[0]?.error.message).toMatch(/run_sheet\.csv:3: field "condition"/);
    expect(sheet.invalid[1]?.error.message).toMatch(
      /run_sheet\.csv:4: field "case_label": case label "\.\.\/escape"/,
    );
    expect(sheet.invalid[2]?.error.message).toBe(`${sheetFile}:8: the row has 5 cells but the header has 7`);
    const layout = new RunLayout(join(dir, 'data'));
    const error = await generateDecksFromRunSheet({
      sheet,
      layout,
      run: 'demo',
      judge: offlineJudge,
      audienceProfiles: PROFILES,
      // Filters select rows to make; the check still covers every row.
      filters: { caseLabels: ['heat_pumps'] },
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UsageError);
    const lines = (error as Error).message.split('\n');
    expect(lines[0]).toBe(`${sheetFile}: 6 problems; no deck was made:`);
    expect(lines.slice(1).map((line) => line.replace(/:.*/, ''))).toEqual([
      '  line 3, condition',
      '  line 4, case_label',
      '  line 5, source_document',
      '  line 6, system',
      '  line 7, audience',
      '  line 8, row',
    ]);
    expect(lines[3]).toMatch(/missing\.md does not exist/);
    expect(lines[4]).toMatch(/unknown system "slidetailor".*a generator of the config/);
    expect(error).toMatchObject({ code: 'invalid_run_sheet' });
    expect(lines[5]).toMatch(/no audience profile "nobody".*known: decision_makers, learners/);
    expect(existsSync(join(dir, 'data'))).toBe(false);
  });

  it('filters and shards select rows', async () => {
    const sheetFile = await writeSheet([
      'xsb-baseline,audience_conditioned,learners,heat_pumps,source.md,,',
      'xsb-baseline,audience_agnostic,all,heat_pumps,source.md,,',
    ]);
    const sheet = await readRunSheet(sheetFile);
    const layout = new RunLayout(join(dir, 'data'));
    const filtered = await generateDecksFromRunSheet({
      sheet,
      layout,
      run: 'filtered',
      judge: offlineJudge,
      audienceProfiles: PROFILES,
      filters: { conditions: ['audience_agnostic'] },
    });
    expect(filtered).toMatchObject({ rows_total: 2, rows_selected: 1, done: 1, failed: 0 });
    // md5("heat_pumps") % 2 decides: exactly one of the two shards takes the case.
    const shardRows = await Promise.all(
      [0, 1].map(async (index) =>
        generateDecksFromRunSheet({
          sheet,
          layout,
          run: `shard${index}`,
          judge: offlineJudge,
          audienceProfiles: PROFILES,
          filters: { caseLabels: ['heat_pumps'], shard: { index, count: 2 } },
        }),
      ),
    );
    expect(shardRows.map((item) => item.rows_selected).sort()).toEqual([0, 2]);
  });

  it('refuses a run sheet that is not UTF-8, and keeps line numbers on a CRLF sheet', async () => {
    const latin1 = join(dir, 'latin1.csv');
    await writeFile(latin1, Buffer.from('system,condition\nxsb-baseline,caf\xe9\n', 'latin1'));
    await expect(readRunSheet(latin1)).rejects.toThrow(/latin1\.csv: file is not valid UTF-8/);
    const crlf = join(dir, 'crlf.csv');
    await writeFile(
      crlf,
      '\uFEFFsystem,condition,audience,case_label,source_document\r\nxsb-baseline,sideways,learners,a,source.md\r\n',
    );
    expect((await readRunSheet(crlf)).invalid.map((row) => row.line)).toEqual([2]);
  });
});

describe('deck reuse by input hash (the one reuse rule)', () => {
  it('reuses a deck made from the same inputs, and makes it again when its source changed', async () => {
    const sheetFile = await writeSheet(['xsb-baseline,audience_agnostic,all,heat_pumps,source.md,,']);
    const layout = new RunLayout(join(dir, 'data'));
    const options = {
      sheet: await readRunSheet(sheetFile),
      layout,
      run: 'demo',
      judge: offlineJudge,
      audienceProfiles: PROFILES,
    };
    const deckDir = layout.deckDir({
      run: 'demo',
      system: 'xsb-baseline',
      condition: 'audience_agnostic',
      audience: 'all',
      caseLabel: 'heat_pumps',
    });
    const recordedKey = async () =>
      (await readJson(join(deckDir, 'deck_status.json'), deckRowStatusSchema)).input_hash;
    expect(await generateDecksFromRunSheet(options)).toMatchObject({ done: 1, skipped: 0 });
    const firstKey = await recordedKey();
    expect(firstKey).toEqual(expect.any(String));
    const unchanged = await generateDecksFromRunSheet(options);
    expect(unchanged).toMatchObject({ done: 0, skipped: 1 });
    expect(unchanged.rows[0]?.message).toBe('output deck exists (forcing the row redoes it)');

    await writeFile(
      join(dir, 'source.md'),
      `${SOURCE}\n## Next steps\nThe council will fund 300 more homes in 2026.\n`,
    );
    expect(await generateDecksFromRunSheet(options)).toMatchObject({ done: 1, skipped: 0 });
    expect(await recordedKey()).not.toBe(firstKey);
    const deck = await readDeck(join(deckDir, 'heat_pumps.pptx'));
    expect(deck.slides.map((slide) => slide.visible_text).join('\n')).toContain('300 more homes');
    expect(await generateDecksFromRunSheet(options)).toMatchObject({ done: 0, skipped: 1 });
  }, 120_000);
});

describe('deckGenerationWorkList: the run makes the calls the list says', () => {
  let server: FakeLlmServer;
  beforeEach(async () => {
    server = await startFakeLlmServer();
    server.setHandler(() => ({
      text: JSON.stringify({
        title: 'Riverton heat pumps',
        subtitle: 'The pilot',
        slides: [
          {
            title: 'Bills fell',
            bullets: ['Average bills fell by 410 dollars per home.', 'Use fell 38 percent.'],
          },
        ],
      }),
    }));
  });
  afterEach(async () => server.close());

  it('lists one outline call per deck for a model judge, a rule for the offline judge, reuse once made', async () => {
    const sheetFile = await writeSheet([
      'xsb-baseline,audience_conditioned,decision_makers,heat_pumps,source.md,,',
      'xsb-baseline,audience_agnostic,all,heat_pumps,source.md,,',
    ]);
    const layout = new RunLayout(join(dir, 'data'));
    const base = { sheet: await readRunSheet(sheetFile), layout, run: 'demo', audienceProfiles: PROFILES };
    const offline = await deckGenerationWorkList({ ...base, judge: offlineJudge });
    expect(offline.map((unit) => unit.decision)).toEqual([
      { kind: 'rule', rule: 'lexical outline' },
      { kind: 'rule', rule: 'lexical outline' },
    ]);
    expect(callsPerStage(offline)).toEqual({});

    const spec = 'openai:gpt-test';
    const planned = await deckGenerationWorkList({
      ...base,
      judge: describeJudge(spec, { readsImages: false }),
    });
    expect(callsPerStage(planned)).toEqual({ 'decks.outline': 2 });
    const client = createLlmClient(spec, { env: fakeProviderEnv(server) });
    const summary = await generateDecksFromRunSheet({
      ...base,
      judge: judgeFromClient(spec, client, { readsImages: false }),
    });
    expect(summary).toMatchObject({ done: 2, failed: 0 });
    expect(server.requests).toHaveLength(2);
    // The request the list holds is the one the run sent: its audience part, word for word.
    const conditioned = planned[0]!.decision;
    if (conditioned.kind !== 'call') throw new Error('expected a call');
    const content = conditioned.requests[0]!.messages[0]!.content;
    const instructions = Array.isArray(content) ? content.at(-1) : undefined;
    expect(instructions && 'text' in instructions && server.requests[0]!.text).toContain(
      instructions && 'text' in instructions ? instructions.text : '?',
    );
    const after = await deckGenerationWorkList({ ...base, judge: describeJudge(spec) });
    expect(after.map((unit) => unit.decision.kind)).toEqual(['reuse', 'reuse']);
    expect(callsPerStage(after)).toEqual({});
  }, 120_000);
});
