import { describe, expect, it } from 'vitest';
import { buildZip } from './build-zip';
import { InputError } from './errors';
import { DEFAULT_ZIP_LIMITS, ZipArchive } from './zip-archive';

describe('ZipArchive and buildZip', () => {
  it('round-trips entries and gives the same bytes for the same entries', () => {
    const entries = [
      { name: 'full.md', data: '# Title\n\nBody text' },
      { name: 'images/a.bin', data: Buffer.from([0, 1, 2, 3]), store: true },
    ];
    const zip = buildZip(entries);
    expect(buildZip(entries).equals(zip)).toBe(true);
    const archive = ZipArchive.open(zip, 'x.zip');
    expect(archive.names()).toEqual(['full.md', 'images/a.bin']);
    expect(archive.readText('full.md')).toBe('# Title\n\nBody text');
    expect([...(archive.read('images/a.bin') ?? [])]).toEqual([0, 1, 2, 3]);
    expect(archive.read('missing')).toBeUndefined();
  });

  it('stops a zip bomb at the entry cap instead of inflating it', () => {
    const bomb = buildZip([{ name: 'big.txt', data: Buffer.alloc(64 * 1024 * 1024) }]);
    expect(bomb.length).toBeLessThan(200_000);
    const archive = ZipArchive.open(bomb, 'bomb.zip', { ...DEFAULT_ZIP_LIMITS, maxEntryBytes: 1024 * 1024 });
    expect(() => archive.read('big.txt')).toThrow(/bomb\.zip: entry big\.txt inflates past 1048576 bytes/);
    expect(() => archive.readText('big.txt')).toThrow(InputError);
  });

  it('caps the total inflated over many entries', () => {
    const zip = buildZip(
      Array.from({ length: 4 }, (_, i) => ({ name: `part${i}`, data: Buffer.alloc(400_000) })),
    );
    const archive = ZipArchive.open(zip, 'many.zip', { ...DEFAULT_ZIP_LIMITS, maxTotalBytes: 1_000_000 });
    archive.read('part0');
    archive.read('part1');
    expect(() => archive.read('part2')).toThrow(/inflates past 1000000 bytes in total/);
  });

  it('never exposes entries whose names could escape a folder, and refuses a non-zip', () => {
    const zip = buildZip([
      { name: '../../etc/passwd', data: 'x' },
      { name: '/abs', data: 'x' },
      { name: 'ok.txt', data: 'fine' },
    ]);
    const archive = ZipArchive.open(zip, 'evil.zip');
    expect(archive.names()).toEqual(['ok.txt']);
    expect(archive.warnings.join(' ')).toMatch(/ignored 2 archive entries with unsafe path names/);
    expect(() => ZipArchive.open(Buffer.from('not a zip at all, just text'), 'plain.zip')).toThrow(
      /plain\.zip: not a valid ZIP archive/,
    );
  });
});
