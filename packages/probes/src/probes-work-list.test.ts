import { existsSync } from 'node:fs';
import { RunLayout } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import type { LlmClient } from '@xsb/llm';
import { loadSourceCase } from '@xsb/sources';
import { writeSourceCase } from '@xsb/sources/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { generateCaseProbes } from './generate-case-probes';
import { LexicalProbeGenerator } from './lexical-probe-generator';
import { LlmProbeGenerator } from './llm-probe-generator';
import { buildProbeGenerationRequest } from './probe-generation-prompt';
import { PROBE_GENERATION_OUTPUT_TOKENS, probesWorkList } from './probes-work-list';

const SOURCE = `# Solar report

Solar capacity in the region grew to 4.2 gigawatts in 2023, doubling the 2021 figure.
The Regional Energy Agency expects storage costs to fall by 30 percent before 2027.
Grid operators warned that evening demand peaks remain the main constraint on further growth.
`;

const refusing: LlmClient = {
  judgeId: 'openai:gpt-test',
  complete: () => Promise.reject(new Error('a work list makes no call')),
};

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups) await cleanup();
  cleanups = [];
});

async function dataDir(): Promise<{ layout: RunLayout; dir: string }> {
  const { dir, cleanup } = await makeTempDir('xsb-probes-list-');
  cleanups.push(cleanup);
  await writeSourceCase(dir, 'case_a', 'report.md', SOURCE, { scene: 'policy_briefing', title: 'Solar' });
  await writeSourceCase(dir, 'case_b', 'empty.md', '', { scene: 'policy_briefing', title: 'Empty' });
  return { layout: new RunLayout(dir), dir };
}

describe('probesWorkList', () => {
  it('lists chunks × k generation requests for a model, a rule offline, and writes no bank', async () => {
    const { layout, dir } = await dataDir();
    const cases = [await loadSourceCase(dir, 'case_a')];
    const [unit] = await probesWorkList(layout, cases, new LlmProbeGenerator(refusing), {
      k: 2,
      chunkChars: 120,
    });
    expect(unit).toMatchObject({ stage: 'probes', id: 'case_a', decision: { kind: 'call' } });
    const decision = unit!.decision as { requests: readonly unknown[]; outputTokens: number };
    const chunks = 'chunks' in unit!.input ? unit!.input.chunks : [];
    expect(chunks.length).toBeGreaterThan(1);
    expect(decision.requests).toHaveLength(chunks.length * 2);
    expect(decision.requests[1]).toEqual(
      buildProbeGenerationRequest({
        ...('generations' in unit!.input ? unit!.input.generations[1]! : ({} as never)),
      }),
    );
    expect(decision.outputTokens).toBe(PROBE_GENERATION_OUTPUT_TOKENS);
    expect(existsSync(layout.probesFile('case_a'))).toBe(false);

    const [offline] = await probesWorkList(layout, cases, new LexicalProbeGenerator());
    expect(offline!.decision).toEqual({ kind: 'rule', rule: 'lexical probe generation' });
  });

  it('reuses a finished bank of the same settings (same reuse key) and not one of other settings', async () => {
    const { layout, dir } = await dataDir();
    const cases = [await loadSourceCase(dir, 'case_a')];
    const generator = new LexicalProbeGenerator();
    const [before] = await probesWorkList(layout, cases, generator);
    await generateCaseProbes(layout, cases[0]!, { generator });
    const [after] = await probesWorkList(layout, cases, generator);
    expect(after!.decision).toEqual({ kind: 'reuse', artifact: layout.probesFile('case_a') });
    expect(after!.reuseKey).toBe(before!.reuseKey);
    const [otherK] = await probesWorkList(layout, cases, generator, { k: 1 });
    expect(otherK!.decision.kind).toBe('rule');
    expect(otherK!.reuseKey).not.toBe(before!.reuseKey);
    const [forced] = await probesWorkList(layout, cases, generator, { force: true });
    expect(forced!.decision.kind).toBe('rule');
  });

  it('decides a case whose source cannot be read by a rule: no call, the error kept for the run', async () => {
    const { layout, dir } = await dataDir();
    const [unit] = await probesWorkList(
      layout,
      [await loadSourceCase(dir, 'case_b')],
      new LlmProbeGenerator(refusing),
    );
    expect(unit!.decision.kind).toBe('rule');
    expect('error' in unit!.input && String(unit!.input.error)).toMatch(/empty/);
  });
});
