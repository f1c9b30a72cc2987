import OpenAI from 'openai';
import { httpFetch } from './http-fetch';
import { OpenAiBatchBackend } from './openai-batch-backend';
import { answerFromChatCompletion, isOfficialOpenAi, toOpenAiBody } from './openai-wire';
import type { ProviderAdapter, ProviderAnswer } from './provider-adapter';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** The SDK client xsb calls through: xsb owns retries and timeouts (one policy, one count of attempts). */
export function openAiSdk(apiKey: string, baseURL: string): OpenAI {
  return new OpenAI({
    apiKey,
    baseURL,
    organization: null,
    project: null,
    maxRetries: 0,
    logLevel: 'off',
    fetch: httpFetch,
  });
}

export function createOpenAiAdapter(apiKey: string, baseUrl: string | undefined): ProviderAdapter {
  const resolvedBase = baseUrl || OPENAI_DEFAULT_BASE_URL;
  const officialApi = isOfficialOpenAi(resolvedBase);
  const client = openAiSdk(apiKey, resolvedBase);
  return {
    provider: 'openai',
    keyVariable: 'OPENAI_API_KEY',
    baseUrl: resolvedBase,
    batch: new OpenAiBatchBackend(client, officialApi),
    async send(request, model, signal, timeoutMs): Promise<ProviderAnswer> {
      const completion = await client.chat.completions.create(toOpenAiBody(request, model, officialApi), {
        signal,
        timeout: timeoutMs,
        maxRetries: 0,
      });
      return answerFromChatCompletion(completion, model);
    },
  };
}
