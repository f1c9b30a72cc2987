import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { ConfigError, InputError } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createCliContext } from './cli-context';
import type { CommandModule } from './command-module';
import { commandModules } from './commands/index';
import { reportExitCode } from './exit-code';
import { targetCommand } from './run-cli';
import { runXsb, type XsbArgs } from './testing-cli';
import { REPO_ROOT } from './testing-fixtures';
import { captureStream } from './testing-streams';

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

describe('lazy command groups', () => {
  it('lists each group under the names and descriptions its code registers', async () => {
    const context = createCliContext(
      { stdout: captureStream(), stderr: captureStream(), env: {}, cwd: REPO_ROOT },
      () => ({}),
    );
    for (const entry of commandModules) {
      const program = new Command('xsb');
      (await entry.load()).register(program, context);
      const registered = program.commands.map((c) => ({ name: c.name(), description: c.description() }));
      expect(registered, `commands/index.ts entry "${entry.name}" must match what it registers`).toEqual(
        entry.commands,
      );
    }
  });

  it('finds the command the arguments name, past global flags and `help`', () => {
    expect(targetCommand(['--help'])).toBeUndefined();
    expect(targetCommand(['-V'])).toBeUndefined();
    expect(targetCommand([])).toBeUndefined();
    expect(targetCommand(['eval', '--run', 'r'])).toBe('eval');
    expect(targetCommand(['--debug', '--config', 'demo', 'aggregate'])).toBe('aggregate');
    expect(targetCommand(['help', 'rubric'])).toBe('rubric');
    expect(targetCommand(['help'])).toBeUndefined();
  });

  it("shows a group's real help (its flags) when asked for it", async () => {
    const help = await runXsb(['eval', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--tau-a <x>');
    const viaHelp = await runXsb(['help', 'aggregate']);
    expect(viaHelp.stdout).toContain('--resamples <n>');
  });

  // Runs the real entry point with a module-resolution hook that writes every resolved URL to a file.
  async function modulesLoadedBy(args: string[]): Promise<string[]> {
    const { dir, cleanup } = await makeTempDir('xsb-cli-trace-');
    try {
      const trace = join(dir, 'trace.txt');
      await writeFile(
        join(dir, 'hooks.mjs'),
        `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(trace)}, result.url + '\\n');
  return result;
}
`,
      );
      await writeFile(
        join(dir, 'register.mjs'),
        `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`,
      );
      const main = join(REPO_ROOT, 'apps', 'cli', 'src', 'main.ts');
      await promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', '--import', pathToFileURL(join(dir, 'register.mjs')).href, main, ...args],
        { cwd: REPO_ROOT },
      ).catch((error: { code?: number }) => {
        if (typeof error.code !== 'number') throw error;
      });
      return (await readFile(trace, 'utf8')).split('\n').filter(Boolean);
    } finally {
      await cleanup();
    }
  }
  const stagePackages = (urls: string[]) =>
    [
      ...new Set(
        urls
          .map(
            (url) =>
              /\/packages\/(\w+)\/src\//.exec(url)?.[1] ??
              /node_modules\/(?:\.pnpm\/)?(unpdf|pdfjs-dist|officeparser|openai|@anthropic-ai)/.exec(
                url,
              )?.[1],
          )
          .filter((name): name is string => name !== undefined && name !== 'core'),
      ),
    ].sort();

  it('imports no stage package for --help or an unknown command', async () => {
    const help = await modulesLoadedBy(['--help']);
    expect(stagePackages(help)).toEqual([]);
    // not even core: its schemas are most of a start-up
    expect(help.filter((url) => url.includes('/packages/core/'))).toEqual([]);
    expect(stagePackages(await modulesLoadedBy(['no-such-command']))).toEqual([]);
  }, 60_000);

  it('imports only the packages of the group it runs', async () => {
    const evalHelp = stagePackages(await modulesLoadedBy(['eval', '--help']));
    expect(evalHelp).toContain('eval');
    expect(evalHelp).not.toContain('rubric');
  }, 60_000);
});
