import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError, UsageError } from '@xsb/core';
import { describe, expect, it } from 'vitest';
import { describeCliError, remedyCommand } from './cli-advice';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');

describe('describeCliError', () => {
  it("turns a library's remedy into the command to type, with the data folder relative to cwd", () => {
    const error = new InputError(
      'does not match meta.json (text hash differs); prepare the source of case a again',
      {
        file: '/w/data/sources/a/context.txt',
        code: 'stale_source_context',
        remedy: { step: 'sources', force: true, caseLabel: 'a', dataDir: join(process.cwd(), 'my data') },
      },
    );
    expect(describeCliError(error)).toBe(
      '/w/data/sources/a/context.txt: does not match meta.json (text hash differs); prepare the source of case a again' +
        ' (run `xsb sources --data "my data" --force --case a`)',
    );
  });

  it('maps every remedy step to a command of the CLI', () => {
    expect(remedyCommand({ step: 'probes' })).toBe('xsb probes');
    expect(remedyCommand({ step: 'weights', force: true, caseLabel: 'b' })).toBe(
      'xsb weights --force --case b',
    );
    expect(remedyCommand({ step: 'eval', run: 'r1' })).toBe('xsb eval --run r1');
    expect(remedyCommand({ step: 'bench-split', dataDir: '/x/d' }, '/x')).toBe('xsb bench split --data d');
    expect(remedyCommand({ step: 'anchor-set', run: 'demo', force: true })).toBe(
      'xsb meta anchors freeze --run demo --force',
    );
    expect(remedyCommand({ step: 'anchor-check', judge: 'replay:s.jsonl' })).toBe(
      'xsb meta anchors check --judge replay:s.jsonl',
    );
    expect(remedyCommand({ step: 'record-prompts', store: 's.jsonl' })).toBe('xsb … --judge record:s.jsonl');
  });

  it('adds the flag that helps by code, and puts advice on its own line under a multi-line message', () => {
    const sheet = new UsageError(
      'sheet.csv: 2 problems; no deck was made:\n  line 2, audience: …\n  line 3, system: …',
      {
        code: 'invalid_run_sheet',
        details: {
          problems: [
            { line: 2, field: 'audience', message: '…' },
            { line: 3, field: 'system', message: '…' },
          ],
        },
      },
    );
    const lines = describeCliError(sheet).split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[3]).toMatch(
      /^ {2}add your own audience profiles with --audiences FILE; SlideTailor rows go through/,
    );
    expect(describeCliError(new UsageError('opens the sealed test split', { code: 'sealed_split' }))).toBe(
      'opens the sealed test split (add --unseal-test)',
    );
    expect(describeCliError(new UsageError('plain'))).toBe('plain');
  });
});

/** Advice phrased as a command or a flag ("run `xsb probes`", "use --force") in a library's source. */
const CLI_ADVICE = /\b(run|use|pass|add|with|rerun|re-run|give|drop)\s+\\?`?(xsb [a-z]|--[a-z])/;

function librarySources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((file) => !file.includes(`${join('src', 'testing')}`));
}

it('no library package words its messages as CLI advice (the CLI adds it from remedies and codes)', () => {
  const packagesDir = join(repoRoot, 'packages');
  const offending: string[] = [];
  for (const name of readdirSync(packagesDir)) {
    for (const file of librarySources(join(packagesDir, name, 'src'))) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, index) => {
          if (/^\s*(\/\/|\*|\/\*)/.test(line)) return;
          if (CLI_ADVICE.test(line))
            offending.push(`${file.slice(repoRoot.length + 1)}:${index + 1}: ${line.trim()}`);
        });
    }
  }
  expect(offending).toEqual([]);
});
