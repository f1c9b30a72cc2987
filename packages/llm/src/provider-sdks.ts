/**
 * The provider SDKs are loaded here, with `import()`, the first time a model client calls its
 * provider: importing `@xsb/llm` (or any stage package) loads neither, so an offline (`lexical`)
 * or replay user, or a caller after the statistics only, pays nothing for them.
 */
import { ConfigError } from '@xsb/core';
import { registerSdkErrors } from './classify-failure';
import type { ProviderName } from './parse-judge-spec';

type AnthropicModule = typeof import('@anthropic-ai/sdk');
type OpenAiModule = typeof import('openai');

/** The npm package each provider's adapter needs. */
const SDK_PACKAGES: Record<ProviderName, string> = {
  anthropic: '@anthropic-ai/sdk',
  openai: 'openai',
};

function missingSdk(provider: ProviderName, judgeSpec: string, cause: unknown): ConfigError {
  const name = SDK_PACKAGES[provider];
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  return new ConfigError(
    `judge "${judgeSpec}" needs the package ${name}, which cannot be loaded${code ? ` (${code})` : ''}: install it beside @xsb/llm (npm install ${name})`,
    { cause },
  );
}

/**
 * Fails at once, before any work, when the provider's SDK cannot be found, so a missing package is
 * a ConfigError when the judge is built rather than a failed row at its first call. Resolving loads
 * nothing. Where `import.meta.resolve` is missing (some bundlers) the check is skipped and the first
 * call fails instead, as an unexpected failure quoting Node's "Cannot find package".
 */
export function requireProviderSdk(provider: ProviderName, judgeSpec: string): void {
  if (typeof import.meta.resolve !== 'function') return;
  try {
    import.meta.resolve(SDK_PACKAGES[provider]);
  } catch (error) {
    throw missingSdk(provider, judgeSpec, error);
  }
}

let anthropic: Promise<AnthropicModule> | undefined;
let openai: Promise<OpenAiModule> | undefined;

async function load<M extends AnthropicModule | OpenAiModule>(importer: () => Promise<M>): Promise<M> {
  const module = await importer();
  // Before any client exists, so every error its calls throw is recognised.
  registerSdkErrors(module.APIError, module.APIConnectionError);
  return module;
}

/** `@anthropic-ai/sdk`, imported once per process. */
export function loadAnthropicSdk(): Promise<AnthropicModule> {
  anthropic ??= load(() => import('@anthropic-ai/sdk'));
  return anthropic;
}

/** `openai`, imported once per process. */
export function loadOpenAiSdk(): Promise<OpenAiModule> {
  openai ??= load(() => import('openai'));
  return openai;
}
