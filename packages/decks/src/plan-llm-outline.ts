import type { Condition } from '@xsb/core';
import { type CompletionRequest, type CompletionResult, completeJson, type LlmClient } from '@xsb/llm';
import { z } from 'zod';
import { languageName } from './deck-scaffolding';
import { type DeckOutline, deckOutlineSchema } from './schemas/deck-outline';

export interface LlmOutlineInput {
  sourceText: string;
  condition: Condition;
  audience: string;
  audienceProfile?: string;
  maxSlides: number;
  language?: string;
  extraInstructions?: string;
}

const OUTLINE_SYSTEM = `You plan presentation slide decks from a source document. Use only facts stated in the source. Reply with one JSON object and nothing else.`;

/**
 * English instructions make a model write English unless told otherwise; an English source's prompt
 * stays as it was, so stored replays of it still answer.
 */
function languageRule(language: string | undefined): string {
  if (language === 'en') return '';
  return language
    ? `\n- Write every title and bullet in ${languageName(language)}, the language of the source.`
    : '\n- Write every title and bullet in the language of the source.';
}

function outlineInstructions(input: LlmOutlineInput): string {
  const audience =
    input.condition === 'audience_conditioned'
      ? `Audience: ${input.audience}. ${input.audienceProfile ?? ''}\nTailor what you select, the depth and the wording to this audience.`
      : 'Audience: not specified. Write a general-purpose deck covering the most important content.';
  return `${audience}

Plan a deck of at most ${input.maxSlides} slides in total, including a title slide that is built from "title" and "subtitle" (so "slides" holds at most ${input.maxSlides - 1} entries).
Return JSON of this shape:
{"title": string, "subtitle": string, "slides": [{"title": string, "bullets": [string, ...], "table"?: {"columns": [string, ...], "rows": [[string, ...], ...]}, "chart"?: {"type": "bar"|"line"|"pie", "title": string, "categories": [string, ...], "series": [{"name": string, "values": [number, ...]}]}, "notes"?: string}]}
Rules:
- 2 to 6 bullets per slide, each at most 20 words, each a complete statement grounded in the source.
- Add a table or chart only when the source gives the numbers; copy them exactly. At most 8 table rows; every series has one value per category.
- Slide titles are short (at most 8 words) and say what the slide shows.${languageRule(input.language)}${
    input.extraInstructions?.trim() ? `\n\nAdditional instructions:\n${input.extraInstructions.trim()}` : ''
  }`;
}

/** The source comes first (a cache breakpoint): conditioned and agnostic requests of a case share it. */
export function buildOutlineRequest(input: LlmOutlineInput): CompletionRequest {
  return {
    system: OUTLINE_SYSTEM,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: `<source>\n${input.sourceText}\n</source>`, cacheBreakpoint: true },
          { type: 'text', text: outlineInstructions(input) },
        ],
      },
    ],
    temperature: 0,
    maxTokens: 4000,
    responseSchema: {
      name: 'deck_outline',
      schema: z.toJSONSchema(deckOutlineSchema, { io: 'input' }) as Record<string, unknown>,
    },
  };
}

export async function planLlmOutline(
  client: LlmClient,
  input: LlmOutlineInput,
): Promise<{ outline: DeckOutline; result: CompletionResult }> {
  const { value, result } = await completeJson(client, buildOutlineRequest(input), deckOutlineSchema, {
    stage: 'decks.outline',
  });
  return { outline: { ...value, slides: value.slides.slice(0, Math.max(1, input.maxSlides - 1)) }, result };
}
