import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '@xsb/core';
import { convertPptxToPdf, findSoffice, runSofficeToPdf } from '@xsb/decks';
import { removeScratchDir, scratchDir } from './scratch-dir';

export interface PptxConversion {
  input: string;
  output: string;
}

export interface BatchConvertOptions {
  soffice?: string;
  env?: Record<string, string | undefined>;
}

/**
 * PPTX → PDF for many decks with one LibreOffice start (the start costs most of a conversion: ~6 s for
 * one deck, ~12 s for twelve). A deck the batch missed is retried alone for an error naming it.
 */
export async function convertPptxBatch(
  conversions: readonly PptxConversion[],
  options: BatchConvertOptions = {},
): Promise<Map<string, Error | null>> {
  const outcome = new Map<string, Error | null>();
  if (conversions.length === 0) return outcome;
  const soffice = findSoffice(options);
  const work = await scratchDir('xsb-report-soffice-');
  try {
    const inputs = join(work, 'in');
    const out = join(work, 'out');
    await mkdir(inputs);
    await mkdir(out);
    const names = conversions.map((_, index) => `deck-${String(index + 1).padStart(4, '0')}`);
    for (const [index, conversion] of conversions.entries())
      await copyFile(conversion.input, join(inputs, `${names[index]}.pptx`));
    // A failed batch is not an error yet: every deck it missed is retried alone below. A failure to
    // start is one too (the retry's error names it). Registered for cleanup like every soffice.
    await runSofficeToPdf({
      soffice,
      work,
      profile: join(work, 'profile'),
      outDir: out,
      inputs: names.map((name) => join(inputs, `${name}.pptx`)),
      timeoutMs: 60_000 + 30_000 * conversions.length,
      ...(options.env ? { env: options.env } : {}),
    }).catch(() => undefined);
    for (const [index, conversion] of conversions.entries()) {
      const produced = join(out, `${names[index]}.pdf`);
      try {
        if (!existsSync(produced)) await convertPptxToPdf(conversion.input, produced, options);
        await writeFileAtomic(conversion.output, await readFile(produced));
        outcome.set(conversion.input, null);
      } catch (error) {
        outcome.set(conversion.input, error as Error);
      }
    }
  } finally {
    await removeScratchDir(work);
  }
  return outcome;
}
