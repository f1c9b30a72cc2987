import Anthropic from '@anthropic-ai/sdk';
import { AnthropicBatchBackend } from './anthropic-batch-backend';
import { answerFromAnthropicMessage, toAnthropicBody } from './anthropic-wire';
import { httpFetch } from './http-fetch';
import type { ProviderAdapter, ProviderAnswer } from './provider-adapter';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

/** The SDK client xsb calls through: xsb owns retries and timeouts (one policy, one count of attempts). */
export function anthropicSdk(apiKey: string, baseURL: string): Anthropic {
  return new Anthropic({
    apiKey,
    authToken: null,
    baseURL,
    maxRetries: 0,
    openTelemetry: false,
    logLevel: 'off',
    fetch: httpFetch,
  });
}

export function createAnthropicAdapter(apiKey: string, baseUrl: string | undefined): ProviderAdapter {
  const resolvedBase = baseUrl || ANTHROPIC_DEFAULT_BASE_URL;
  const client = anthropicSdk(apiKey, resolvedBase);
  return {
    provider: 'anthropic',
    keyVariable: 'ANTHROPIC_API_KEY',
    baseUrl: resolvedBase,
    batch: new AnthropicBatchBackend(client),
    async send(request, model, signal, timeoutMs): Promise<ProviderAnswer> {
      // The same POST `messages.create` makes, minus its console.warn on every call naming a
      // deprecated model: a run makes thousands of calls, and a library must not write to the console.
      const message = await client.post<Anthropic.Message>('/v1/messages', {
        body: toAnthropicBody(request, model),
        signal,
        timeout: timeoutMs,
        maxRetries: 0,
      });
      return answerFromAnthropicMessage(message, model);
    },
  };
}
