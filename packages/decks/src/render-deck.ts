import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile } from 'node:fs/promises';
import { basename, delimiter, extname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  ConfigError,
  createScratchDir,
  InputError,
  removeScratchDir,
  runTrackedProcess,
  writeFileAtomic,
} from '@xsb/core';
import { detectDeckFormat } from './read-deck';

const LIBREOFFICE_PACKAGE = 'libreoffice-impress-nogui';

export interface RenderDeckOptions {
  outDir: string;
  /** Pixels per point (default 2 ≈ 144 dpi). */
  scale?: number;
  maxSlides?: number;
  /** `soffice` to use for PPTX (default: `$XSB_SOFFICE`, else found on PATH). */
  soffice?: string;
  env?: Record<string, string | undefined>;
  /** Gives up on one PPTX conversion after this long (ms, default 180 s). */
  convertTimeoutMs?: number;
}

function findOnPath(command: string, env: Record<string, string | undefined>): string | undefined {
  for (const folder of (env.PATH ?? '').split(delimiter)) {
    if (folder && existsSync(join(folder, command))) return join(folder, command);
  }
  return undefined;
}

export function findSoffice(options: Pick<RenderDeckOptions, 'soffice' | 'env'> = {}): string {
  const env = options.env ?? process.env;
  const explicit = options.soffice ?? env.XSB_SOFFICE;
  if (explicit) {
    if (!existsSync(explicit)) throw new ConfigError(`soffice not found at ${explicit} (XSB_SOFFICE)`);
    return explicit;
  }
  const found = findOnPath('soffice', env) ?? findOnPath('libreoffice', env);
  if (!found) {
    throw new ConfigError(
      `rendering PPTX needs LibreOffice: install it with "apt-get install --no-install-recommends ${LIBREOFFICE_PACKAGE} fonts-liberation2 fonts-crosextra-carlito fonts-crosextra-caladea" (or set XSB_SOFFICE)`,
      { code: 'missing_soffice' },
    );
  }
  return found;
}

/**
 * Own profile folder (two conversions sharing one silently produce no file); a tracked process group,
 * so an interrupted command kills LibreOffice's forked soffice.bin too.
 */
export function runSofficeToPdf(options: {
  soffice: string;
  work: string;
  profile: string;
  outDir: string;
  inputs: readonly string[];
  timeoutMs: number;
  env?: Record<string, string | undefined>;
}): ReturnType<typeof runTrackedProcess> {
  return runTrackedProcess(
    options.soffice,
    [
      `-env:UserInstallation=${pathToFileURL(options.profile).href}`,
      '--headless',
      '--norestore',
      '--convert-to',
      'pdf',
      '--outdir',
      options.outDir,
      ...options.inputs,
    ],
    {
      label: 'soffice',
      timeoutMs: options.timeoutMs,
      env: { ...process.env, ...options.env, HOME: options.work },
    },
  );
}

export async function convertPptxToPdf(
  pptxPath: string,
  pdfPath: string,
  options: Pick<RenderDeckOptions, 'soffice' | 'env' | 'convertTimeoutMs'> = {},
): Promise<void> {
  const soffice = findSoffice(options);
  const fail = (reason: string) => new InputError(reason, { file: pptxPath, code: 'convert_failed' });
  const work = await createScratchDir('xsb-soffice-');
  try {
    const profile = join(work, 'profile');
    const out = join(work, 'out');
    await mkdir(out);
    const input = join(work, `deck${extname(pptxPath) || '.pptx'}`);
    await copyFile(pptxPath, input);
    const result = await runSofficeToPdf({
      soffice,
      work,
      profile,
      outDir: out,
      inputs: [input],
      timeoutMs: options.convertTimeoutMs ?? 180_000,
      ...(options.env ? { env: options.env } : {}),
    }).catch((error: Error) => {
      throw fail(`LibreOffice could not start: ${error.message}`);
    });
    if (result.timedOut || result.code !== 0) {
      const reason = result.timedOut
        ? 'timed out'
        : result.stderr.trim() || `soffice exited with ${result.signal ?? `code ${result.code}`}`;
      throw fail(`LibreOffice could not convert the deck to PDF: ${reason}`);
    }
    const produced = (await readdir(out)).find((name) => name.toLowerCase().endsWith('.pdf'));
    if (!produced) throw fail('LibreOffice produced no PDF (a corrupt or unsupported deck?)');
    await mkdir(join(pdfPath, '..'), { recursive: true });
    await copyFile(join(out, produced), pdfPath);
  } finally {
    await removeScratchDir(work);
  }
}

/** Renders a deck's slides to `slide-001.png` … in `outDir` (PPTX through LibreOffice to PDF first). */
export async function renderDeck(deckPath: string, options: RenderDeckOptions): Promise<string[]> {
  const bytes = await readFile(deckPath).catch((error: Error) => {
    throw new InputError(`cannot open the deck: ${error.message}`, { file: deckPath, code: 'missing_file' });
  });
  const format = detectDeckFormat(bytes.subarray(0, 1024), deckPath);
  let pdfBytes: Buffer = bytes;
  if (format === 'pptx') {
    const work = await createScratchDir('xsb-render-');
    try {
      const pdfPath = join(work, `${basename(deckPath)}.pdf`);
      await convertPptxToPdf(deckPath, pdfPath, options);
      pdfBytes = await readFile(pdfPath);
    } finally {
      await removeScratchDir(work);
    }
  }
  const { pdf } = await import('pdf-to-img');
  let document: Awaited<ReturnType<typeof pdf>>;
  try {
    document = await pdf(new Uint8Array(pdfBytes), { scale: options.scale ?? 2 });
  } catch (error) {
    const reason =
      (error as { name?: string }).name === 'PasswordException'
        ? 'the PDF is password-protected (encrypted)'
        : `cannot render the PDF: ${(error as Error).message}`;
    throw new InputError(reason, { file: deckPath, code: 'render_failed' });
  }
  const written: string[] = [];
  try {
    const count = Math.min(document.length, options.maxSlides ?? document.length);
    for (let page = 1; page <= count; page++) {
      const png = await document.getPage(page);
      const file = join(options.outDir, `slide-${String(page).padStart(3, '0')}.png`);
      await writeFileAtomic(file, png);
      written.push(file);
    }
  } finally {
    await document.destroy();
  }
  return written;
}
