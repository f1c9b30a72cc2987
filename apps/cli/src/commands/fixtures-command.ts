import { cp, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { plural, UsageError } from '@xsb/core';
import type { CommandModule } from '../command-module';
import { locateFixtures } from '../shipped-fixtures';

/** Refuses an `--out` that is a file or a folder with anything in it: xsb fixtures never overwrites. */
async function requireEmptyDestination(out: string): Promise<void> {
  const found = await stat(out).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (found === undefined) return;
  if (!found.isDirectory()) throw new UsageError(`--out ${out} is a file: name a new or empty folder`);
  if ((await readdir(out)).length > 0)
    throw new UsageError(
      `--out ${out} already exists and is not empty: xsb fixtures never overwrites; remove it or name another folder`,
    );
}

/** Copies `from` to `out` through a sibling temp folder, so an interrupted copy never leaves a half-filled `out`. */
async function copyFolder(from: string, out: string): Promise<number> {
  const partial = join(dirname(out), `.${basename(out)}.partial-${process.pid}`);
  await rm(partial, { recursive: true, force: true });
  try {
    await cp(from, partial, { recursive: true });
    const files = (await readdir(partial, { recursive: true, withFileTypes: true })).filter((e) =>
      e.isFile(),
    );
    // rename() replaces an empty folder, the one case requireEmptyDestination lets through.
    await rename(partial, out);
    return files.length;
  } finally {
    await rm(partial, { recursive: true, force: true });
  }
}

/** `xsb fixtures`: the fixtures the CLI ships, copied where the docs' examples expect them (./fixtures). */
export const fixturesCommand: CommandModule = {
  name: 'fixtures',
  register(program, context) {
    program
      .command('fixtures')
      .description(
        "copy the fixtures xsb ships (demo sources and decks, replay store, bench cases, rubric instances) into ./fixtures, so the docs' examples run as written",
      )
      .option('--out <dir>', 'where to copy them (default ./fixtures); a new or empty folder')
      .action(async (flags: { out?: string }) => {
        const from = locateFixtures(context.io);
        const out = resolve(context.io.cwd, flags.out ?? 'fixtures');
        await requireEmptyDestination(out);
        const count = await copyFolder(from, out);
        context.print(`copied ${plural(count, 'file')} of xsb's fixtures from ${from} to ${out}`);
        context.print(
          basename(out) === 'fixtures'
            ? `the examples in the docs name fixtures/…: run them from ${dirname(out)}`
            : 'the examples in the docs name fixtures/…: copy to a folder named fixtures to run them as written',
        );
      });
  },
};
