import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const benchDir = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The model SDKs, and pptxgenjs, which only writing an outline deck needs (imported when it does). */
const ABSENT = ['openai', '@anthropic-ai/sdk', 'pptxgenjs'];

/** A resolve hook that answers as Node does when a package is absent from node_modules. */
const hooks = `
const absent = new Set(${JSON.stringify(ABSENT)});
export async function resolve(specifier, context, next) {
  if (absent.has(specifier)) {
    const error = new Error("Cannot find package '" + specifier + "' (removed by the test)");
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}`;
const registerHooks = `import { register } from 'node:module';
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;

/** Runs in the child: imports the packages, then tries to build each judge. */
const child = `
const outcome = { imported: [], judges: {}, absentImports: {} };
for (const name of ['@xsb/llm', '@xsb/eval', '@xsb/bench']) {
  await import(name);
  outcome.imported.push(name);
}
for (const name of ${JSON.stringify(ABSENT)}) {
  outcome.absentImports[name] = await import(name).then(() => 'loaded', (error) => error.code);
}
const { createJudge, createTokenCounter } = await import('@xsb/llm');
const env = { ANTHROPIC_API_KEY: 'test-key', OPENAI_API_KEY: 'test-key' };
const attempt = (build) => {
  try {
    return build().kind ?? 'built';
  } catch (error) {
    return { name: error.name, code: error.code, message: error.message };
  }
};
for (const spec of ['lexical', 'anthropic:claude-test', 'openai:gpt-test'])
  outcome.judges[spec] = attempt(() => createJudge(spec, { env }));
outcome.judges['count openai:gpt-test'] = attempt(() => createTokenCounter('openai:gpt-test', { env }));
console.log(JSON.stringify(outcome));
`;

describe('without the model SDKs (and pptxgenjs) installed', () => {
  it('@xsb/llm, @xsb/eval and @xsb/bench import, the offline judge builds, a model judge is a ConfigError naming the package', async () => {
    // One child process where `openai`, `@anthropic-ai/sdk` and `pptxgenjs` cannot be resolved (as
    // when they are left out of node_modules); tsx runs the workspace sources, so no build is needed.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--import',
        'tsx',
        '--import',
        `data:text/javascript,${encodeURIComponent(registerHooks)}`,
        '--input-type=module',
        '-e',
        child,
      ],
      { cwd: benchDir, timeout: 60_000 },
    );
    const outcome = JSON.parse(stdout.trim().split('\n').at(-1) as string);
    expect(outcome.imported).toEqual(['@xsb/llm', '@xsb/eval', '@xsb/bench']);
    // The hook really hides them: the imports above would have failed on a static import.
    expect(outcome.absentImports).toEqual(
      Object.fromEntries(ABSENT.map((name) => [name, 'ERR_MODULE_NOT_FOUND'])),
    );
    expect(outcome.judges.lexical).toBe('offline');
    for (const [spec, sdk] of [
      ['anthropic:claude-test', '@anthropic-ai/sdk'],
      ['openai:gpt-test', 'openai'],
      ['count openai:gpt-test', 'openai'],
    ] as const) {
      const failure = outcome.judges[spec];
      expect(failure).toMatchObject({ name: 'ConfigError', code: 'config' });
      expect(failure.message).toContain(
        `needs the package ${sdk}, which cannot be loaded (ERR_MODULE_NOT_FOUND)`,
      );
      expect(failure.message).toContain(`npm install ${sdk}`);
      expect(failure.message).not.toMatch(/\n\s+at /);
    }
  }, 60_000);
});
