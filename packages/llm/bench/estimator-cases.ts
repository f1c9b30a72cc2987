import type { CompletionRequest } from '../src/completion-types';

const text = (words: number) =>
  Array.from(
    { length: words },
    (_, i) => ['slide', 'revenue', 'grew', '12%', 'in', 'Q3', 'über'][i % 7],
  ).join(' ');
const schema = {
  type: 'object',
  properties: { verdict: { type: 'string', enum: ['yes', 'no'] }, explanation: { type: 'string' } },
  required: ['verdict'],
};

/**
 * Representative judge requests for checking the token estimator against the fake server's
 * billing (the test) and for printing its error (the bench). `tolerance`: the relative error
 * (estimate − billed) / billed allowed per provider, as [low, high].
 */
export const ESTIMATOR_CASES: ReadonlyArray<{
  name: string;
  request: CompletionRequest;
  tolerance: { anthropic: [number, number]; openai: [number, number] };
}> = [
  {
    name: 'short question',
    request: { system: 'You are a careful judge.', messages: [{ role: 'user', content: 'Is 2 + 2 = 4?' }] },
    tolerance: { anthropic: [-0.25, 0.05], openai: [-0.25, 0.05] },
  },
  {
    name: 'deck + materials (15k tokens)',
    request: {
      system: 'Judge the deck against the checklist item.',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: text(12_000), cacheBreakpoint: true },
            { type: 'text', text: 'Item: the deck states the Q3 growth.' },
          ],
        },
      ],
    },
    tolerance: { anthropic: [-0.01, 0.01], openai: [-0.01, 0.01] },
  },
  {
    name: 'structured answer (response schema)',
    request: {
      system: 'Answer in JSON.',
      messages: [{ role: 'user', content: text(400) }],
      responseSchema: { name: 'verdict', schema },
    },
    // Anthropic gets the schema inside an instruction (more text than the schema alone); OpenAI's
    // fake does not bill response_format at all.
    tolerance: { anthropic: [-0.1, 0], openai: [0, 0.1] },
  },
  {
    name: 'slide images',
    request: {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', mediaType: 'image/png', data: new Uint8Array(200_000) },
            { type: 'image', mediaType: 'image/png', data: new Uint8Array(180_000) },
            { type: 'text', text: 'Which slide shows the revenue chart?' },
          ],
        },
      ],
    },
    tolerance: { anthropic: [-0.01, 0.01], openai: [-0.01, 0.01] },
  },
];
