import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ConfigError, InputError } from '@xsb/core';
import { describe, expect, it } from 'vitest';
import type { CommandModule } from './command-module';
import { reportExitCode } from './exit-code';
import { runXsb, type XsbArgs } from './testing-cli';
import { REPO_ROOT } from './testing-fixtures';

const run = (args: XsbArgs, modules?: CommandModule[]) =>
  runXsb(args, { env: { HOME: '/nonexistent' }, ...(modules ? { modules } : {}) });

const failing: CommandModule = {
  name: 'fail',
  register(program) {
    program.command('config-error').action(() => {
      throw new ConfigError('OPENAI_API_KEY is not set: export it or put it in .env');
    });
    program.command('row-error').action(() => {
      throw new InputError('password-protected PDF', { file: 'deck.pdf' });
    });
    program.command('bug').action(() => {
      throw new TypeError('cannot read properties of undefined');
    });
    program.command('some-rows-failed').action(() => {
      reportExitCode(1);
    });
  },
};

describe('xsb CLI shell', () => {
  it('prints help and version with exit 0', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: xsb');
    expect(help.stdout).toContain('config');
    const version = await run(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('maps a usage error to exit 2 with ERROR: and no stack', async () => {
    const result = await run(['--no-such-flag']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^ERROR: unknown option '--no-such-flag'/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect((await run(['no-such-command'])).code).toBe(2);
  });

  it('maps a configuration error to exit 2 and a failed row to exit 1', async () => {
    const config = await run(['config-error'], [failing]);
    expect(config.code).toBe(2);
    expect(config.stderr).toBe('ERROR: OPENAI_API_KEY is not set: export it or put it in .env\n');
    const row = await run(['row-error'], [failing]);
    expect(row.code).toBe(1);
    expect(row.stderr).toBe('ERROR: deck.pdf: password-protected PDF\n');
    expect((await run(['some-rows-failed'], [failing])).code).toBe(1);
  });

  it('shows a stack trace only with --debug', async () => {
    const plain = await run(['bug'], [failing]);
    expect(plain.code).toBe(1);
    expect(plain.stderr).not.toMatch(/\n\s+at /);
    const debug = await run(['--debug', 'bug'], [failing]);
    expect(debug.stderr).toMatch(/\n\s+at /);
  });

  it('reports a bad environment value before any work', async () => {
    const result = await runXsb(['config', 'show'], {
      env: { XSB_PDF: 'x', XSLIDESBENCH_PDF_PARSER: 'pymupdf' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^ERROR: invalid configuration: "pdfParser"/);
    expect(result.stdout).toBe('');
  });

  it('runs as a real process with the exit code set', async () => {
    const main = join(REPO_ROOT, 'apps', 'cli', 'src', 'main.ts');
    const error = await promisify(execFile)(process.execPath, ['--import', 'tsx', main, '--bogus'], {
      cwd: REPO_ROOT,
    }).catch((e) => e);
    expect(error.code).toBe(2);
    expect(error.stderr).toContain("ERROR: unknown option '--bogus'");
  });
});
