import OpenAI from 'openai';
import { httpFetch } from './http-fetch';
import { OpenAiBatchBackend } from './openai-batch-backend';
import { answerFromChatCompletion, isOfficialOpenAi, toOpenAiBody } from './openai-wire';
import type { ProviderAdapter, ProviderAnswer } from './provider-adapter';

const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export function createOpenAiAdapter(apiKey: string, baseUrl: string | undefined): ProviderAdapter {
  const resolvedBase = baseUrl || OPENAI_DEFAULT_BASE_URL;
  const officialApi = isOfficialOpenAi(resolvedBase);
  const client = new OpenAI({
    apiKey,
    baseURL: resolvedBase,
    organization: null,
    project: null,
    // xsb owns retries and timeouts so there is one policy and one count of attempts.
    maxRetries: 0,
    logLevel: 'off',
    fetch: httpFetch,
  });
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
