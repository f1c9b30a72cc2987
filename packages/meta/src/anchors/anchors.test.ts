import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { anchorCheckFile, anchorCheckPasses, anchorSetFile } from '@xsb/bench';
import { metaAnchorCheckSchema, metaAnchorSetSchema, RunLayout, readJson, UsageError } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { runDemo } from '@xsb/eval';
import { type FakeLlmServer, fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomJudgeReply } from '../testing';
import { anchorVerdict, checkAnchors } from './check-anchors';
import { freezeAnchors } from './freeze-anchors';

let dir: string;
let cleanup: () => Promise<void>;
let dataDir: string;
let server: FakeLlmServer;
const clock = (iso: string) => () => new Date(iso);

beforeAll(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-meta-anchors-'));
  ({ dataDir } = await runDemo({ outDir: join(dir, 'demo') }));
  server = await startFakeLlmServer({ handler: (request) => randomJudgeReply(request, 3) });
}, 120_000);
afterAll(async () => {
  await server.close();
  await cleanup();
});

describe('drift anchors', () => {
  it('freezes a seeded sample of finished decks with their verdicts and input hashes', async () => {
    const { set, file } = await freezeAnchors({
      dataDir,
      run: 'demo',
      size: 2,
      now: clock('2026-12-01T10:00:00Z'),
    });
    expect(await readJson(file, metaAnchorSetSchema)).toEqual(set);
    expect(file).toBe(anchorSetFile(dataDir, 'demo'));
    expect(set.judge).toBe('lexical');
    expect(set.decks).toHaveLength(2);
    expect(set.verdicts.length).toBeGreaterThanOrEqual(2);
    expect(set.item_count).toBeGreaterThan(10);
    await expect(freezeAnchors({ dataDir, run: 'demo', size: 2 })).rejects.toThrow(UsageError);
    const again = await freezeAnchors({
      dataDir,
      run: 'demo',
      size: 2,
      force: true,
      now: clock('2026-12-01T10:00:00Z'),
    });
    expect(again.set).toEqual(set);
  }, 60_000);

  it('passes the judge that froze them (deterministic lexical: kappa 1)', async () => {
    const { check, file } = await checkAnchors({
      dataDir,
      judge: 'lexical',
      now: clock('2026-12-01T11:00:00Z'),
    });
    expect(await readJson(file, metaAnchorCheckSchema)).toEqual(check);
    expect(file).toBe(anchorCheckFile(dataDir, 'demo', 'lexical'));
    expect(check).toMatchObject({
      anchor_set: 'demo',
      judge: 'lexical',
      frozen_judge: 'lexical',
      agreement: 1,
      kappa: 1,
      passed: true,
      min_kappa: 0.8,
    });
    expect(check.n).toBeGreaterThan(10);
  }, 60_000);

  it('fails a judge that answers at random, and bench compare learns why', async () => {
    const judge = 'openai:gpt-random';
    const { check } = await checkAnchors({
      dataDir,
      judge,
      env: fakeProviderEnv(server),
      now: clock('2026-12-01T12:00:00Z'),
    });
    expect(check.passed).toBe(false);
    expect(check.kappa!).toBeLessThan(0.5);
    expect(check.reason).toMatch(/does not reproduce the verdicts of lexical/);
    const verdict = await anchorCheckPasses(dataDir, judge);
    expect(verdict.passed).toBe(false);
    expect(verdict.reason).toMatch(/anchor set "demo" \(lexical\): kappa .* < 0\.8 over \d+ items/);
    // The threshold is the caller's.
    expect((await anchorCheckPasses(dataDir, judge, { minKappa: -1 })).passed).toBe(true);
    expect(await anchorCheckPasses(dataDir, 'lexical')).toMatchObject({ passed: true });
    const unknown = await anchorCheckPasses(dataDir, 'anthropic:never-checked');
    expect(unknown.passed).toBe(false);
    expect(unknown.reason).toBe(
      'judge anthropic:never-checked has no anchor check against the frozen anchor set',
    );
  }, 120_000);

  it('refuses to check against a probe bank that changed since freezing', async () => {
    const set = await readJson(anchorSetFile(dataDir, 'demo'), metaAnchorSetSchema);
    const probes = new RunLayout(dataDir).probesFile(set.decks[0]!.case_label);
    await writeFile(probes, '\n', { flag: 'a' });
    await expect(checkAnchors({ dataDir, judge: 'lexical' })).rejects.toThrow(
      /probe bank of case .* changed since anchor set "demo" was frozen/,
    );
    expect((await anchorCheckPasses(join(dir, 'empty'), 'lexical')).reason).toMatch(/no anchor set/);
  }, 60_000);
});

describe('anchorVerdict', () => {
  const judges = { checked: 'openai:new', frozen: 'openai:old' };
  it('passes at kappa >= the minimum, falls back to raw agreement with one label, fails on no match', () => {
    expect(anchorVerdict({ matched_items: 10, kappa: 0.8, raw: 0.9 }, 0.8, judges).passed).toBe(true);
    const low = anchorVerdict({ matched_items: 10, kappa: 0.5, raw: 0.9 }, 0.8, judges);
    expect(low).toEqual({
      passed: false,
      reason:
        'kappa 0.500 < 0.8 over 10 items: judge openai:new does not reproduce the verdicts of openai:old',
    });
    expect(anchorVerdict({ matched_items: 4, kappa: null, raw: 1 }, 0.8, judges).passed).toBe(true);
    expect(anchorVerdict({ matched_items: 4, kappa: null, raw: 0.75 }, 0.8, judges).passed).toBe(false);
    expect(anchorVerdict({ matched_items: 0, kappa: null, raw: null }, 0.8, judges)).toEqual({
      passed: false,
      reason: 'no item of the anchors could be matched with the new verdicts',
    });
  });
});
