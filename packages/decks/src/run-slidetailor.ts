import { spawn } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { InputError, type ProgressReporter, type RunLayout, UsageError } from '@xsb/core';
import { readDeck } from './read-deck';
import { type DeckRowFilters, describeByFiles, runDeckRows } from './run-deck-rows';
import type { RunSheet } from './run-sheet';
import type { DeckBatchSummary } from './schemas/deck-run-status';

export interface RunSlideTailorOptions {
  sheet: RunSheet;
  layout: RunLayout;
  run: string;
  /** Run without a shell; {config} {source} {preferences} {output} {case_label} {condition} {audience}. */
  command: string;
  filters?: DeckRowFilters;
  force?: boolean;
  /** Per row, default 2 h. */
  timeoutMs?: number;
  env?: Record<string, string | undefined>;
  cwd?: string;
  progress?: ProgressReporter;
}

export function splitCommand(command: string): string[] {
  const words: string[] = [];
  const pattern = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (const match of command.matchAll(pattern)) words.push(match[1] ?? match[2] ?? match[3] ?? '');
  if (words.length === 0) throw new UsageError('the SlideTailor command is empty');
  return words;
}

/** The most telling stderr line: the last one naming an error, else the last two lines. */
function stderrSummary(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const errors = lines.filter((line) => /error|exception|traceback/i.test(line));
  return (errors.length > 0 ? errors.slice(-1) : lines.slice(-2)).join(' / ').slice(0, 500);
}

function runCommand(
  argv: string[],
  env: Record<string, string | undefined>,
  timeoutMs: number,
  file: string,
  cwd: string | undefined,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const [program, ...args] = argv as [string, ...string[]];
    const child = spawn(program, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
      ...(cwd ? { cwd } : {}),
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-4000);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new InputError(`cannot start ${program}: ${error.message}`, { file, code: 'command_failed' }));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve();
      const tail = stderrSummary(stderr);
      const how = signal
        ? `was killed (${signal}${signal === 'SIGKILL' ? ', timed out?' : ''})`
        : `exited with ${code}`;
      reject(
        new InputError(`SlideTailor ${how}${tail ? `: ${tail}` : ''}`, { file, code: 'command_failed' }),
      );
    });
  });
}

/** A row succeeds only if the command exits 0 AND leaves a readable deck at the row's output path. */
export async function runSlideTailor(options: RunSlideTailorOptions): Promise<DeckBatchSummary> {
  const template = splitCommand(options.command);
  return runDeckRows({
    ...options,
    deckFileName: (entry) => `${entry.row.case_label}.pptx`,
    // The prepared config decides the deck too, beside the row's source and preferences; the
    // `--command` running SlideTailor does not (a rerun with another invocation keeps done decks).
    describe: (task) => {
      const config = task.entry.row.config_path;
      return describeByFiles(task, { reads: typeof config === 'string' && config !== '' ? [config] : [] });
    },
    produce: async ({ entry, outputDeckPath }) => {
      const { row } = entry;
      const configPath = typeof row.config_path === 'string' ? row.config_path : '';
      const values: Record<string, string> = {
        config: configPath,
        source: entry.sourceDocument,
        preferences: entry.promptPath,
        output: outputDeckPath,
        case_label: row.case_label,
        condition: row.condition,
        audience: row.audience,
      };
      const argv = template.map((word) =>
        word.replace(/\{(\w+)\}/g, (whole, key: string) => values[key] ?? whole),
      );
      await mkdir(dirname(outputDeckPath), { recursive: true });
      await runCommand(
        argv,
        {
          ...options.env,
          XSB_SLIDETAILOR_CONFIG: configPath,
          XSB_SLIDETAILOR_OUTPUT: outputDeckPath,
        },
        options.timeoutMs ?? 2 * 60 * 60 * 1000,
        `${options.sheet.file}:${entry.line}`,
        options.cwd,
      );
      try {
        await readDeck(outputDeckPath);
      } catch (error) {
        // A broken output must not count as "done" on the next run.
        await rm(outputDeckPath, { force: true });
        throw new InputError(`SlideTailor exited 0 but left no readable deck: ${(error as Error).message}`, {
          file: `${options.sheet.file}:${entry.line}`,
          code: 'no_output',
        });
      }
    },
  });
}
