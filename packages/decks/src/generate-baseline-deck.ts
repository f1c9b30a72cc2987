import { join } from 'node:path';
import {
  type Condition,
  type DeckOutline,
  deckOutlineSchema,
  InputError,
  type LexicalPreferences,
  writeJson,
} from '@xsb/core';
import type { LlmClient } from '@xsb/llm';
import { planLexicalOutline } from './plan-lexical-outline';
import { planLlmOutline } from './plan-llm-outline';
import { writeOutlinePptx } from './write-outline-pptx';

/** The system name of the built-in generator in run sheets and the deck tree. */
export const BASELINE_SYSTEM = 'xsb-baseline';

export interface BaselineDeckRequest {
  caseLabel: string;
  condition: Condition;
  audience: string;
  sourceText: string;
  /** The audience profile description; required for `audience_conditioned`. */
  audienceProfile?: string;
  /**
   * The profile's offline preferences, for the lexical planner. Built-in audiences need none (the planner
   * knows them by id); a user profile passes its own.
   */
  audiencePreferences?: LexicalPreferences;
  /** Most slides including the title slide (default 8). */
  maxSlides?: number;
  /** Where the PPTX goes. */
  outputDeckPath: string;
  /** Where `deck_outline.json` goes (the normalized deck folder). */
  deckDir: string;
  /** Extra model instructions (the run sheet's prompt file); the lexical planner ignores them. */
  extraInstructions?: string;
}

export interface BaselineDeckResult {
  outline: DeckOutline;
  slideCount: number;
  outlineFile: string;
}

/** Human label for an audience name: `decision_makers` → `decision makers`. */
function audienceLabel(audience: string): string {
  return audience.replace(/[_-]+/g, ' ');
}

/**
 * The built-in `xsb-baseline` generator: source (+ audience profile when conditioned) → outline
 * (from `planner`: the model, or `'lexical'` for the deterministic extractive planner) → PPTX.
 * The outline is kept as `deck_outline.json` beside the deck.
 */
export async function generateBaselineDeck(
  request: BaselineDeckRequest,
  planner: LlmClient | 'lexical',
): Promise<BaselineDeckResult> {
  const conditioned = request.condition === 'audience_conditioned';
  if (conditioned && !request.audienceProfile?.trim()) {
    throw new InputError(
      `no audience profile for "${request.audience}": a conditioned deck needs the audience description`,
      { code: 'missing_profile' },
    );
  }
  const maxSlides = request.maxSlides ?? 8;
  const profile = conditioned ? request.audienceProfile : undefined;
  const outline =
    planner === 'lexical'
      ? planLexicalOutline(request.sourceText, {
          fallbackTitle: request.caseLabel,
          maxSlides,
          ...(profile ? { audienceProfile: profile, audienceId: request.audience } : {}),
          ...(profile && request.audiencePreferences
            ? { audiencePreferences: request.audiencePreferences }
            : {}),
          subtitle: conditioned ? `For ${audienceLabel(request.audience)}` : '',
        })
      : (
          await planLlmOutline(planner, {
            sourceText: request.sourceText,
            condition: request.condition,
            audience: request.audience,
            maxSlides,
            ...(profile ? { audienceProfile: profile } : {}),
            ...(request.extraInstructions ? { extraInstructions: request.extraInstructions } : {}),
          })
        ).outline;
  const outlineFile = join(request.deckDir, 'deck_outline.json');
  await writeJson(outlineFile, deckOutlineSchema, outline);
  const slideCount = await writeOutlinePptx(outline, request.outputDeckPath);
  return { outline, slideCount, outlineFile };
}
