import { resolve } from 'node:path';
import { UsageError } from '@xsb/core';
import { readDeck } from '@xsb/decks';
import { type LayoutCheckResult, runLayoutChecks } from '@xsb/rubric';
import type { Command } from 'commander';
import type { CliContext } from '../../cli-context';
import { optionalIntegerFlag, requireExistingPath } from '../../cli-options';
import { reportExitCode } from '../../exit-code';
import { languageFlag, positiveNumber } from './rubric-flags';

interface CheckFlags {
  json?: boolean;
  slides?: string;
  language?: string;
  maxBullets?: string;
  minFont?: string;
  requireSource?: boolean;
}

/** How a check reads: a failure, a pass, or not applicable to this deck (`passed: null`). */
export function checkStatus(check: LayoutCheckResult): 'pass' | 'fail' | 'not applicable' {
  return check.passed === null ? 'not applicable' : check.passed ? 'pass' : 'fail';
}

function slideRangeFlag(value: string | undefined): { min: number; max: number } | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+)-(\d+)$/.exec(value.trim());
  if (!match || Number(match[1]) < 1 || Number(match[1]) > Number(match[2])) {
    throw new UsageError(`--slides must look like 21-35, got "${value}"`);
  }
  return { min: Number(match[1]), max: Number(match[2]) };
}

export function registerCheck(rubric: Command, context: CliContext): void {
  rubric
    .command('check <deck>')
    .description(
      'only the deterministic layout checks (no model); exit 1 when a check fails or the deck has no slides ("not applicable" is not a failure)',
    )
    .option('--slides <min-max>', 'required slide range, e.g. 21-35')
    .option(
      '--language <code>',
      'expected language: en, de, fr, es, it, pt, nl, zh, ja, ko, ru, uk, ar, el, hi (default: the deck’s majority script)',
    )
    .option(
      '--max-bullets <n>',
      'most readable content items (paragraphs, bulleted or not) a slide may carry (default 6)',
    )
    .option('--min-font <pt>', 'smallest allowed font size in points (default 12)')
    .option(
      '--require-source',
      'every slide must name its source (section, chapter, figure, page, "Source:")',
    )
    .option(
      '--json',
      'print {deck, slide_count, checks[{id, status, passed, slides, detail, findings}]} as JSON',
    )
    .action(async (deckArgument: string, flags: CheckFlags) => {
      const slideRange = slideRangeFlag(flags.slides);
      const language = languageFlag(flags.language);
      const maxBullets = optionalIntegerFlag('--max-bullets', flags.maxBullets, 1);
      const minFont = positiveNumber(flags.minFont, '--min-font');
      const deckPath = requireExistingPath('deck', resolve(context.io.cwd, deckArgument));
      const deck = await readDeck(deckPath);
      const checks = runLayoutChecks(deck, {
        ...(slideRange ? { slideRange } : {}),
        ...(language ? { language } : {}),
        ...(maxBullets ? { maxBullets } : {}),
        ...(minFont ? { minFontSizePt: minFont } : {}),
        requireSourceAttribution: flags.requireSource ?? false,
      });
      if (checks.some((check) => check.passed === false)) reportExitCode(1);
      if (flags.json) {
        context.printJson({
          deck: deckPath,
          slide_count: deck.slides.length,
          checks: checks.map(({ id, ...check }) => ({ id, status: checkStatus({ id, ...check }), ...check })),
        });
        return;
      }
      for (const check of checks) {
        const mark = { pass: 'pass', fail: 'FAIL', 'not applicable': 'n/a ' }[checkStatus(check)];
        const detail = check.passed === null ? `not applicable: ${check.detail}` : check.detail;
        context.print(`${mark} ${check.id.padEnd(18)} ${detail}`);
        for (const finding of check.findings)
          context.print(`       slide ${finding.slide}: ${finding.detail}`);
      }
    });
}
