import { relative } from 'node:path';
import { describeError, isXsbError, type Remedy, type XsbError } from '@xsb/core';

const shellWord = (value: string) => (/^[\w./:@=+-]+$/.test(value) ? value : JSON.stringify(value));

/** The command that carries out a library's remedy, as the user would type it. */
export function remedyCommand(remedy: Remedy, cwd = process.cwd()): string {
  const flag = (name: string, value: string | undefined) => (value ? ` --${name} ${shellWord(value)}` : '');
  const data = flag('data', remedy.dataDir === undefined ? undefined : relative(cwd, remedy.dataDir) || '.');
  const force = remedy.force ? ' --force' : '';
  const forCase = flag('case', remedy.caseLabel);
  switch (remedy.step) {
    case 'sources':
    case 'probes':
    case 'weights':
      return `xsb ${remedy.step}${data}${force}${forCase}`;
    case 'eval':
      return `xsb eval${data}${flag('run', remedy.run)}${forCase}`;
    case 'aggregate':
      return `xsb aggregate${data}${flag('run', remedy.run)}`;
    case 'bench-split':
      return `xsb bench split${data}`;
    case 'anchor-set':
      return `xsb meta anchors freeze${data} --run ${remedy.run ? shellWord(remedy.run) : 'R'}${force}`;
    case 'anchor-check':
      return `xsb meta anchors check${data}${flag('judge', remedy.judge)}`;
    case 'perturb':
      return 'xsb meta perturb';
    case 'import-decks':
      return `xsb decks import${flag('system', remedy.system)}`;
    case 'record-prompts':
      return `xsb … --judge record:${remedy.store ?? 'STORE'}`;
  }
}

/** The fields a run sheet's (or an import's) problems are about. */
function problemFields(error: XsbError): Set<unknown> {
  const { problems, fields } = error.details ?? {};
  if (Array.isArray(fields)) return new Set(fields);
  return new Set(
    Array.isArray(problems) ? problems.map((problem) => (problem as { field?: string }).field) : [],
  );
}

function sheetAdvice(fields: Set<unknown>): string | undefined {
  const advice = [
    fields.has('audience') ? 'add your own audience profiles with --audiences FILE' : '',
    fields.has('system')
      ? "SlideTailor rows go through `xsb decks run-slidetailor`, other tools' decks through `xsb decks import`"
      : '',
  ].filter(Boolean);
  return advice.length > 0 ? advice.join('; ') : undefined;
}

/** Advice keyed by code, for faults whose fix is a flag of the command that failed. */
function flagAdvice(error: XsbError): string | undefined {
  if (error.code === 'no_text_layer' && error.details?.parser === 'unpdf') return 'use --pdf-parser mineru';
  if (error.code === 'mineru_not_configured') return 'or use --pdf-parser unpdf';
  if (error.code === 'sealed_split') return 'add --unseal-test';
  if (error.code === 'batch_unsupported') return 'drop --batch';
  if (error.code === 'port_in_use') return 'pick another with --port';
  if (error.code === 'no_api_tokens') return 'or pass --insecure-local on a loopback host';
  if (error.code === 'invalid_run_sheet' || error.code === 'invalid_import')
    return sheetAdvice(problemFields(error));
  return undefined;
}

/**
 * Libraries say what is wrong and which step would fix it in their own terms; only the CLI knows its commands and
 * flags, so the command to type is added here, from the error's remedy or its code.
 */
function adviceFor(error: unknown, cwd: string): string | undefined {
  if (!isXsbError(error)) return undefined;
  if (error.remedy) return `run \`${remedyCommand(error.remedy, cwd)}\``;
  return flagAdvice(error);
}

/** The error's message as the CLI prints and records it: the library's reason, then what to type. */
export function describeCliError(error: unknown, cwd = process.cwd()): string {
  const advice = adviceFor(error, cwd);
  const message = describeError(error);
  if (!advice) return message;
  return message.includes('\n') ? `${message}\n  ${advice}` : `${message} (${advice})`;
}
