import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RunLayout, readJson, UsageError } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findDeckFile } from './find-deck-file';
import { importExternalDecks } from './import-external-decks';
import { readDeck } from './read-deck';
import { deckImportManifestSchema } from './schemas/deck-import-manifest';
import { buildTestPptx } from './testing';

const fixturePdf = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '../../../fixtures/decks/notebooklm/cs_raft_consensus.pdf',
);

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-import-'));
});
afterEach(async () => cleanup());

describe('importExternalDecks', () => {
  it('files exported PDFs by case label, writes a manifest, and is idempotent', async () => {
    const exports = join(dir, 'exports');
    await mkdir(join(exports, 'audience_conditioned', 'learners'), { recursive: true });
    await copyFile(fixturePdf, join(exports, 'cs_raft_consensus.pdf'));
    await copyFile(fixturePdf, join(exports, 'audience_conditioned', 'learners', 'cs_raft_consensus.pdf'));
    await writeFile(join(exports, 'broken.pdf'), '%PDF-1.4 garbage');
    await writeFile(join(exports, 'readme.txt'), 'not a deck');
    const layout = new RunLayout(join(dir, 'data'));
    const options = { system: 'notebooklm', fromDir: exports, layout, run: 'r1' };

    const first = await importExternalDecks(options);
    expect(first.imported).toHaveLength(2);
    expect(first.skipped.map((item) => item.file).sort()).toEqual([
      join(exports, 'broken.pdf'),
      join(exports, 'readme.txt'),
    ]);
    const agnosticDir = layout.deckDir({
      run: 'r1',
      system: 'notebooklm',
      condition: 'audience_agnostic',
      audience: 'all',
      caseLabel: 'cs_raft_consensus',
    });
    const deckFile = await findDeckFile(agnosticDir);
    expect(deckFile).toBe(join(agnosticDir, 'cs_raft_consensus.pdf'));
    expect((await readDeck(deckFile ?? '')).slide_count).toBe(6);
    const manifest = await readJson(first.manifestFile, deckImportManifestSchema);
    expect(manifest.decks.map((deck) => `${deck.condition}/${deck.audience}/${deck.case_label}`)).toEqual([
      'audience_agnostic/all/cs_raft_consensus',
      'audience_conditioned/learners/cs_raft_consensus',
    ]);

    const manifestBefore = await readFile(first.manifestFile);
    const mtimeBefore = (await stat(first.manifestFile)).mtimeMs;
    const second = await importExternalDecks(options);
    expect(second.imported).toEqual([]);
    expect(second.unchanged).toHaveLength(2);
    expect((await readFile(first.manifestFile)).equals(manifestBefore)).toBe(true);
    expect((await stat(first.manifestFile)).mtimeMs).toBe(mtimeBefore);

    // A changed export is not silently overwritten.
    const changed = Buffer.concat([await readFile(fixturePdf), Buffer.from('\n% re-exported\n')]);
    await writeFile(join(exports, 'cs_raft_consensus.pdf'), changed);
    const third = await importExternalDecks(options);
    expect(third.skipped.some((item) => /exists with other content/.test(item.reason))).toBe(true);
    const forced = await importExternalDecks({ ...options, force: true });
    expect(forced.imported).toEqual([join(agnosticDir, 'cs_raft_consensus.pdf')]);
    expect((await readFile(join(agnosticDir, 'cs_raft_consensus.pdf'))).equals(changed)).toBe(true);
    expect(existsSync(join(dir, 'data', 'runs', 'r1', 'decks', 'notebooklm', 'import_manifest.json'))).toBe(
      true,
    );
  });

  it('refuses a missing folder and unsafe case labels', async () => {
    const layout = new RunLayout(join(dir, 'data'));
    await expect(
      importExternalDecks({ system: 'notebooklm', fromDir: join(dir, 'nope'), layout, run: 'r' }),
    ).rejects.toThrow(/not a folder of exported decks/);
    const exports = join(dir, 'exports');
    await mkdir(exports);
    await copyFile(fixturePdf, join(exports, ' .pdf'));
    const result = await importExternalDecks({ system: 'notebooklm', fromDir: exports, layout, run: 'r' });
    expect(result.skipped[0]?.reason).toMatch(/cannot be used as a path part/);
  });

  it('checks every deck before importing any: case, audience, and (with strict) empty decks', async () => {
    const layout = new RunLayout(join(dir, 'data'));
    for (const caseId of ['cs_raft_consensus', 'heat_pumps']) {
      await mkdir(layout.sourceDir(caseId), { recursive: true });
      await writeFile(join(layout.sourceDir(caseId), 'source.md'), `# ${caseId}\n\nText.\n`);
    }
    const exports = join(dir, 'exports');
    await mkdir(join(exports, 'audience_conditioned', 'learner'), { recursive: true });
    await copyFile(fixturePdf, join(exports, 'cs_raft_consensus.pdf'));
    await copyFile(fixturePdf, join(exports, 'cs_raft_consensus (1).pdf'));
    await copyFile(fixturePdf, join(exports, 'Heat pumps export.pdf'));
    await copyFile(fixturePdf, join(exports, 'audience_conditioned', 'learner', 'heat_pumps.pdf'));
    await writeFile(join(exports, 'heat_pumps.pptx'), buildTestPptx({ slides: [{ fileNumber: 1 }] }));
    const options = { system: 'notebooklm', fromDir: exports, layout, run: 'r', audiences: ['learners'] };
    const error = await importExternalDecks(options).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message.split('\n')).toEqual([
      `${exports}: 3 problems; no deck was imported:`,
      '  audience_conditioned/learner/heat_pumps.pdf: unknown audience "learner" (did you mean "learners"?) (known: learners)',
      '  cs_raft_consensus (1).pdf: the file name "cs_raft_consensus (1).pdf" names no case of the data folder (did you mean "cs_raft_consensus"?); name each deck <case_label>.pdf (cases: cs_raft_consensus, heat_pumps)',
      '  Heat pumps export.pdf: the file name "Heat pumps export.pdf" names no case of the data folder (did you mean "heat_pumps"?); name each deck <case_label>.pdf (cases: cs_raft_consensus, heat_pumps)',
    ]);
    expect((error as UsageError).details).toMatchObject({ fields: ['audience'] });
    expect(existsSync(layout.decksRoot('r'))).toBe(false);

    await rm(join(exports, 'cs_raft_consensus (1).pdf'));
    await rm(join(exports, 'Heat pumps export.pdf'));
    await rm(join(exports, 'audience_conditioned'), { recursive: true });
    const strict = await importExternalDecks({ ...options, strict: true }).catch((caught: unknown) => caught);
    expect((strict as Error).message).toContain(
      'heat_pumps.pptx: the deck has no visible words (refused in strict mode)',
    );
    expect(existsSync(layout.decksRoot('r'))).toBe(false);
    const lenient = await importExternalDecks(options);
    expect(lenient.warnings).toEqual([
      'heat_pumps.pptx: the deck has no visible words; imported anyway (strict mode refuses it)',
    ]);
    expect(lenient.imported).toHaveLength(2);
  });
});
