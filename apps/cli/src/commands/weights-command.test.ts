import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { audienceWeightSchema, readJsonlAll } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { writeSourceCase } from '@xsb/sources/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runXsb, type XsbArgs } from '../testing-cli';

const TEXT = [
  'A heat pump is a device that moves heat from a cold place to a warm place using electricity.',
  'The pilot replaced the gas boilers of 412 homes between 2022 and 2024.',
  'Running costs fell by 18 percent compared with the old gas heating.',
].join('\n');

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir: root, cleanup } = await makeTempDir('xsb-weights-cli-'));
  await writeSourceCase(join(root, 'data'), 'pilot', 'report.md', TEXT, {
    scene: 'briefing',
    valid_audiences: ['learners', 'investors'],
  });
});
afterEach(() => cleanup());

const run = (args: XsbArgs) => runXsb(args, { cwd: root });

describe('xsb weights', () => {
  it('before `xsb probes`: exits 2 with one line naming the cases; a case without a bank among others fails once', async () => {
    await writeSourceCase(join(root, 'data'), 'second', 'notes.md', TEXT, {
      scene: 'briefing',
      valid_audiences: ['learners', 'investors'],
    });
    const early = await run(['weights']);
    expect(early.code).toBe(2);
    expect(early.stderr).toBe(
      'ERROR: no probe bank for cases pilot, second: generate the probes first (run `xsb probes --data data`)\n',
    );
    expect(early.stdout).toBe('');

    expect((await run(['probes', '--case', 'pilot'])).code).toBe(0);
    const partly = await run(['weights', '--audience', 'learners']);
    expect(partly.code).toBe(1);
    expect(partly.stdout).toMatch(/pilot\s+learners\s+\d+\s+0\s+0\s+complete/);
    expect(partly.stderr.match(/no probe bank/g)).toHaveLength(1);
    expect(partly.stderr).toMatch(
      /ERROR: second\/-: no probe bank \(generate the probes of this case first\)/,
    );
  });

  it("weighs each case's valid audiences, with user profiles from --audiences", async () => {
    expect((await run(['probes'])).code).toBe(0);
    const profiles = join(root, 'audiences.json');
    await writeFile(
      profiles,
      JSON.stringify([
        { id: 'investors', description: 'People who fund the work and care about its return.' },
      ]),
    );
    const missing = await run(['weights']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/pilot\/investors: no profile for audience "investors"/);
    const result = await run(['weights', '--audiences', profiles, '--batch-size', '2', '--k', '2']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/pilot\s+learners\s+\d+\s+0\s+0\s+complete/);
    expect(result.stdout).toMatch(/pilot\s+investors\s+\d+\s+0\s+0\s+complete/);
    const rows = await readJsonlAll(
      join(root, 'data', 'probes', 'pilot', 'weights', 'investors.jsonl'),
      audienceWeightSchema,
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.metadata.k === 2)).toBe(true);
  });

  it('marks an audience the case does not list as not applicable and writes nothing for it', async () => {
    await run(['probes']);
    const result = await run(['weights', '--audience', 'specialists']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/pilot\s+specialists\s+0\s+0\s+0\s+not_applicable/);
    await expect(
      readFile(join(root, 'data', 'probes', 'pilot', 'weights', 'specialists.jsonl')),
    ).rejects.toThrow();
  });
});
