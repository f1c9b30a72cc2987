import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from './errors';
import { parseDotenv } from './load-dotenv';
import { makeTempDir } from './testing';
import { loadConfig } from './xsb-config';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
});
afterEach(() => cleanup());

describe('loadConfig', () => {
  it('merges file < environment < flags', async () => {
    await writeFile(
      join(dir, 'xsb.config.yaml'),
      'judge: openai:gpt-x\nrun: from-file\ndataDir: file-data\n',
    );
    const { config, configFile } = loadConfig({
      cwd: dir,
      env: { XSB_RUN: 'from-env', XSB_DATA_DIR: 'env-data', HOME: dir },
      flags: { run: 'from-flag', dataDir: undefined },
    });
    expect(configFile).toBe(join(dir, 'xsb.config.yaml'));
    expect(config.judge).toBe('openai:gpt-x');
    expect(config.dataDir).toBe('env-data');
    expect(config.run).toBe('from-flag');
  });

  it('reads a JSON config and coerces environment booleans', async () => {
    await writeFile(
      join(dir, 'xsb.config.json'),
      JSON.stringify({ providers: { openai: { maxConcurrency: 4 } } }),
    );
    const { config } = loadConfig({ cwd: dir, env: { XSB_NO_CACHE: '1', HOME: dir } });
    expect(config.providers.openai?.maxConcurrency).toBe(4);
    expect(config.noCache).toBe(true);
  });

  it('reads the batch settings and refuses an unknown one by name', async () => {
    await writeFile(join(dir, 'xsb.config.yaml'), 'batch:\n  idleMs: 50\n  maxRequestsPerBatch: 500\n');
    const { config } = loadConfig({ cwd: dir, env: { HOME: dir } });
    expect(config.batch).toEqual({ idleMs: 50, maxRequestsPerBatch: 500 });
    expect(loadConfig({ cwd: join(dir, 'nowhere'), env: { HOME: dir } }).config.batch).toEqual({});
    await writeFile(join(dir, 'xsb.config.yaml'), 'batch:\n  idle: 50\n');
    expect(() => loadConfig({ cwd: dir, env: { HOME: dir } })).toThrow(/unknown key "batch\.idle"/);
    await writeFile(join(dir, 'xsb.config.yaml'), 'batch:\n  pollIntervalMs: 0\n');
    expect(() => loadConfig({ cwd: dir, env: { HOME: dir } })).toThrow(/batch\.pollIntervalMs/);
  });

  it('puts .env underneath the real environment', async () => {
    await writeFile(
      join(dir, '.env'),
      'OPENAI_API_KEY=from-file\nANTHROPIC_API_KEY="quoted value" # comment\n',
    );
    const { env } = loadConfig({ cwd: dir, env: { OPENAI_API_KEY: 'from-env', HOME: dir } });
    expect(env.OPENAI_API_KEY).toBe('from-env');
    expect(env.ANTHROPIC_API_KEY).toBe('quoted value');
  });

  it('fails a bad value with a ConfigError naming the key and the file', async () => {
    await writeFile(join(dir, 'xsb.config.json'), JSON.stringify({ pdfParser: 'pymupdf' }));
    const error = (() => {
      try {
        loadConfig({ cwd: dir, env: { HOME: dir } });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('"pdfParser"');
    expect((error as Error).message).toContain('xsb.config.json');
  });

  it('accepts rpm, tpm and max_concurrency as short names of the provider limits', async () => {
    await writeFile(
      join(dir, 'xsb.config.yaml'),
      'providers:\n  anthropic: {rpm: 50, tpm: 40000, max_concurrency: 16, timeoutMs: 9000}\n',
    );
    const { config } = loadConfig({ cwd: dir, env: { HOME: dir } });
    expect(config.providers.anthropic).toEqual({
      requestsPerMinute: 50,
      tokensPerMinute: 40_000,
      maxConcurrency: 16,
      timeoutMs: 9000,
    });
  });

  it('refuses both spellings of one provider limit', async () => {
    await writeFile(
      join(dir, 'xsb.config.json'),
      JSON.stringify({ providers: { openai: { rpm: 50, requestsPerMinute: 60 } } }),
    );
    expect(() => loadConfig({ cwd: dir, env: { HOME: dir } })).toThrow(
      /providers\.openai\.rpm.*requestsPerMinute/,
    );
  });

  it('fails an unparseable config file', async () => {
    await writeFile(join(dir, 'xsb.config.json'), '{nope');
    expect(() => loadConfig({ cwd: dir, env: {} })).toThrow(ConfigError);
  });
});

// biome-ignore lint/suspicious/noTemplateCurlyInString: the config holds a literal ${VAR} reference
const API_KEY_REFERENCE = '${API_KEY}';

describe('loadConfig: generators', () => {
  const load = async (generators: unknown) => {
    await writeFile(join(dir, 'xsb.config.yaml'), JSON.stringify({ generators }));
    return loadConfig({ cwd: dir, env: { HOME: dir } });
  };
  const failure = async (generators: unknown) => {
    try {
      await load(generators);
    } catch (error) {
      return error as Error;
    }
    throw new Error('the config loaded');
  };

  it('reads a command generator with its defaults', async () => {
    const { config } = await load({
      pptagent: {
        command: ['python3', 'run.py', '--in={source}', '{{literal}}'],
        env: { KEY: API_KEY_REFERENCE },
      },
    });
    expect(config.generators.pptagent).toEqual({
      command: ['python3', 'run.py', '--in={source}', '{{literal}}'],
      timeout_s: 3600,
      env: { KEY: API_KEY_REFERENCE },
      format: 'pptx',
    });
  });

  it('names an unknown placeholder, its place and the known ones', async () => {
    const error = await failure({ mine: { command: ['gen', '--out', '{output}'] } });
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain('generators.mine.command[2]');
    expect(error.message).toContain('unknown placeholder {output}');
    expect(error.message).toContain('{source} {source_dir} {audience} {condition} {prompt} {out} {case}');
  });

  it('rejects an empty program, an unknown key, a bad timeout and the built-in name', async () => {
    expect((await failure({ mine: { command: [''] } })).message).toContain('must not be empty');
    expect((await failure({ mine: { command: ['gen'], timeout: 5 } })).message).toMatch(/timeout/);
    expect((await failure({ mine: { command: ['gen'], timeout_s: 0 } })).message).toContain('timeout_s');
    expect((await failure({ 'xsb-baseline': { command: ['gen'] } })).message).toContain('built-in');
    expect((await failure({ '../x': { command: ['gen'] } })).message).toContain('system name');
  });
});

describe('loadConfig: unknown keys', () => {
  const message = async (file: string, text: string) => {
    await writeFile(join(dir, file), text);
    try {
      loadConfig({ cwd: dir, env: { HOME: dir } });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error('the config loaded');
  };

  it('names a misspelled top-level key and the nearest known one', async () => {
    const text = await message('xsb.config.yaml', 'generator:\n  mine:\n    command: [gen]\n');
    expect(text).toContain('unknown key "generator" (did you mean "generators"?)');
    expect(text).toContain(join(dir, 'xsb.config.yaml'));
  });

  it('names unknown keys at every level, with their path', async () => {
    expect(await message('xsb.config.yaml', 'providers:\n  openai:\n    rpmm: 5\n')).toContain(
      'unknown key "providers.openai.rpmm" (did you mean "rpm"?)',
    );
    expect(await message('xsb.config.yaml', 'prices:\n  m: {input: 1, ouput: 2}\n')).toContain(
      'unknown key "prices.m.ouput" (did you mean "output"?)',
    );
    expect(
      await message('xsb.config.yaml', 'prices:\n  m: {input: 1, output: 2, batch: {inptu: 1}}\n'),
    ).toContain('unknown key "prices.m.batch.inptu" (did you mean "input"?)');
    expect(await message('xsb.config.yaml', 'api:\n  worker: 3\n')).toContain(
      'unknown key "api.worker" (did you mean "workers"?)',
    );
    expect(await message('xsb.config.yaml', 'generators:\n  mine: {command: [gen], timeout: 5}\n')).toContain(
      'unknown key "generators.mine.timeout"',
    );
    expect(await message('xsb.config.yaml', 'batch:\n  idleM: 5\n')).toContain(
      'unknown key "batch.idleM" (did you mean "idleMs"?)',
    );
  });

  it('lists every unknown key, and suggests nothing for a word far from any key', async () => {
    const text = await message('xsb.config.json', JSON.stringify({ judges: 'lexical', colour: 'red' }));
    expect(text).toContain('unknown key "judges" (did you mean "judge"?)');
    expect(text).toMatch(/unknown key "colour" \(known: dataDir, run, judge/);
  });
});

describe('parseDotenv', () => {
  it('handles export, quotes, comments and blank lines', () => {
    expect(parseDotenv('# c\nexport A=1\nB=\'two words\'\nC="x\\ny"\n\nD=plain # trailing\n')).toEqual({
      A: '1',
      B: 'two words',
      C: 'x\ny',
      D: 'plain',
    });
  });
});
