import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const benchDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const SDKS = ['openai', '@anthropic-ai/sdk'];

/** A resolve hook that answers as Node does when a package is absent from node_modules. */
const hooks = `
const absent = new Set(${JSON.stringify(SDKS)});
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
const outcome = { imported: [], judges: {}, sdkImports: {} };
for (const name of ['@xsb/llm', '@xsb/eval', '@xsb/bench']) {
  await import(name);
  outcome.imported.push(name);
}
for (const name of ${JSON.stringify(SDKS)}) {
  outcome.sdkImports[name] = await import(name).then(() => 'loaded', (error) => error.code);
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

describe('without the model SDKs installed', () => {
  it('@xsb/llm, @xsb/eval and @xsb/bench import, the offline judge builds, a model judge is a ConfigError naming the package', async () => {
    // One child process where `openai` and `@anthropic-ai/sdk` cannot be resolved (as when they are
    // left out of node_modules); tsx runs the workspace sources, so no build is needed.
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
    expect(outcome.sdkImports).toEqual({
      openai: 'ERR_MODULE_NOT_FOUND',
      '@anthropic-ai/sdk': 'ERR_MODULE_NOT_FOUND',
    });
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
