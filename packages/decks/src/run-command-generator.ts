import { spawn } from 'node:child_process';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import {
  ConfigError,
  type GeneratorConfig,
  type GeneratorPlaceholder,
  InputError,
  unknownGeneratorPlaceholders,
  writeFileAtomic,
  type XsbErrorCode,
} from '@xsb/core';
import { readDeck } from './read-deck';

export type GeneratorValues = Record<GeneratorPlaceholder, string>;

const KILL_GRACE_MS = 2000;
const STDERR_TAIL_BYTES = 4000;

/** No shell sees the argv and elements are never split: `;` or `$(…)` in a path reach the program as is. */
export function generatorArgv(name: string, template: readonly string[], values: GeneratorValues): string[] {
  return template.map((argument, index) => {
    const unknown = unknownGeneratorPlaceholders(argument);
    if (unknown.length > 0) {
      throw new ConfigError(`generators.${name}.command[${index}]: unknown placeholder {${unknown[0]}}`);
    }
    return argument.replace(/\{\{|\}\}|\{([^{}]*)\}/g, (whole, key: string | undefined) =>
      key === undefined ? whole.charAt(0) : values[key as GeneratorPlaceholder],
    );
  });
}

/** `${VAR}` references filled in; returns the values that came from them too, so messages can hide them. */
export function resolveGeneratorEnv(
  name: string,
  env: Readonly<Record<string, string>>,
  environment: Readonly<Record<string, string | undefined>>,
): { env: Record<string, string>; secrets: string[] } {
  const secrets: string[] = [];
  const resolved: Record<string, string> = {};
  for (const [key, template] of Object.entries(env)) {
    resolved[key] = template.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, variable: string) => {
      const value = environment[variable];
      if (value === undefined) {
        throw new ConfigError(
          `generators.${name}.env.${key} refers to \${${variable}}, which is not set in the environment or .env`,
        );
      }
      secrets.push(value);
      return value;
    });
  }
  return { env: resolved, secrets };
}

export interface CommandGeneratorRow {
  name: string;
  config: GeneratorConfig;
  values: Omit<GeneratorValues, 'out'>;
  outputDeckPath: string;
  /** The row's deck folder: `stdout.log`, `stderr.log` and `work/` are kept here. */
  deckDir: string;
  environment: Readonly<Record<string, string | undefined>>;
  baseDir: string;
  where: string;
}

interface ExitOutcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}

/**
 * In its own process group, so a time-out ends its children too; what is left of the group after the
 * program exits is killed: nothing a generator started keeps writing after its row is decided.
 */
async function runInGroup(
  argv: string[],
  options: { cwd: string; env: Record<string, string | undefined>; timeoutMs: number; logDir: string },
): Promise<ExitOutcome> {
  const stdout = await open(join(options.logDir, 'stdout.log'), 'w');
  const stderr = await open(join(options.logDir, 'stderr.log'), 'w');
  try {
    return await new Promise<ExitOutcome>((resolvePromise, reject) => {
      const [program, ...args] = argv as [string, ...string[]];
      const child = spawn(program, args, {
        cwd: options.cwd,
        env: options.env,
        stdio: ['ignore', stdout.fd, stderr.fd],
        detached: true,
        shell: false,
      });
      let timedOut = false;
      let killTimer: NodeJS.Timeout | undefined;
      const endGroup = () => {
        if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
      };
      // If xsb itself exits or is interrupted mid-row, the generator's group goes with it (it is not in
      // the terminal's process group, so Ctrl-C would not reach it).
      process.once('exit', endGroup);
      const onSignal = (signal: NodeJS.Signals) => {
        endGroup();
        process.removeListener('SIGINT', onSignal);
        process.removeListener('SIGTERM', onSignal);
        process.kill(process.pid, signal);
      };
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      const timer = setTimeout(() => {
        timedOut = true;
        if (child.pid === undefined) return;
        killGroup(child.pid, 'SIGTERM');
        killTimer = setTimeout(endGroup, KILL_GRACE_MS);
      }, options.timeoutMs);
      const settle = () => {
        clearTimeout(timer);
        clearTimeout(killTimer);
        process.removeListener('exit', endGroup);
        process.removeListener('SIGINT', onSignal);
        process.removeListener('SIGTERM', onSignal);
      };
      child.once('error', (error) => {
        settle();
        reject(error);
      });
      child.once('exit', (code, signal) => {
        settle();
        endGroup();
        resolvePromise({ code, signal, timedOut });
      });
    });
  } finally {
    await stdout.close();
    await stderr.close();
  }
}

async function stderrTail(file: string, secrets: string[]): Promise<string> {
  let text: string;
  try {
    const bytes = await readFile(file);
    text = bytes.subarray(Math.max(0, bytes.length - STDERR_TAIL_BYTES)).toString('utf8');
  } catch {
    return '';
  }
  for (const secret of secrets) if (secret.length >= 4) text = text.split(secret).join('***');
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const tail = lines.slice(-3).join(' / ');
  return tail.length > 500 ? `…${tail.slice(-499)}` : tail;
}

async function moveIntoPlace(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await writeFileAtomic(to, await readFile(from));
    await rm(from, { force: true });
  }
}

/**
 * Runs one row through a command generator; its deck reaches `outputDeckPath` only once it has been
 * read, so no half-written deck is ever there. Logs stay beside the deck for a failed row.
 */
export async function runCommandGenerator(row: CommandGeneratorRow): Promise<{ slideCount: number }> {
  const { name, config } = row;
  const extension = /\.(pptx|pdf)$/i.exec(row.outputDeckPath)?.[1]?.toLowerCase();
  if (extension && extension !== config.format) {
    throw new InputError(
      `the row's output deck path ends in .${extension}, but generator "${name}" writes ${config.format} (its "format")`,
      { file: row.where, code: 'format_mismatch' },
    );
  }
  const workDir = join(row.deckDir, 'work');
  await rm(workDir, { recursive: true, force: true });
  const outDir = join(workDir, 'out');
  await mkdir(outDir, { recursive: true });
  const out = join(outDir, `${basename(row.outputDeckPath).replace(/\.(pptx|pdf)$/i, '')}.${config.format}`);
  const argv = generatorArgv(name, config.command, { ...row.values, out });
  const { env, secrets } = resolveGeneratorEnv(name, config.env, row.environment);
  const cwd = config.cwd ? resolve(row.baseDir, config.cwd) : workDir;
  const fail = (reason: string, code: XsbErrorCode) =>
    new InputError(`generator "${name}" ${reason}`, { file: row.where, code });
  let outcome: ExitOutcome;
  try {
    outcome = await runInGroup(argv, {
      cwd,
      env: { ...row.environment, ...env, XSB_WORK_DIR: workDir },
      timeoutMs: config.timeout_s * 1000,
      logDir: row.deckDir,
    });
  } catch (error) {
    throw fail(`could not start ${JSON.stringify(argv[0])} (${(error as Error).message})`, 'command_failed');
  }
  if (outcome.timedOut) throw fail(`timed out after ${config.timeout_s} s`, 'timed_out');
  if (outcome.code !== 0) {
    const how = outcome.signal ? `was killed by ${outcome.signal}` : `exited with code ${outcome.code}`;
    const tail = await stderrTail(join(row.deckDir, 'stderr.log'), secrets);
    throw fail(`${how}${tail ? `: ${tail}` : ' (stderr.log is empty)'}`, 'command_failed');
  }
  const size = await stat(out).then(
    (info) => (info.isFile() ? info.size : -1),
    () => -1,
  );
  if (size < 0) throw fail(`exited 0 but wrote no deck to {out} (${out})`, 'no_output');
  if (size === 0) throw fail(`exited 0 but the deck it wrote is empty (${out})`, 'no_output');
  let slideCount: number;
  try {
    const deck = await readDeck(out);
    if (deck.format !== config.format) {
      throw new Error(
        `it is a ${deck.format.toUpperCase()}, but the generator is configured with format ${config.format}`,
      );
    }
    if (deck.slide_count === 0) throw new Error('it has no slides');
    slideCount = deck.slide_count;
  } catch (error) {
    throw fail(`exited 0 but its deck cannot be used: ${(error as Error).message}`, 'bad_output');
  }
  await mkdir(dirname(row.outputDeckPath), { recursive: true });
  await moveIntoPlace(out, row.outputDeckPath);
  return { slideCount };
}
