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
import { audienceLabel, type DeckScaffolding, scaffoldingFor } from './deck-scaffolding';
import { detectSourceLanguage } from './detect-source-language';
import { BulletRegister } from './near-duplicate-text';
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
  /** The deck title (`title` of the case's `source_metadata.json`); without it the planner's. */
  title?: string;
  /** The case's scene (`scene` of `source_metadata.json`): the agnostic deck's subtitle. */
  scene?: string;
  /** The source's language (ISO 639-1); detected from the source text (eld) when not given. */
  language?: string;
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
  /** The language the deck's added words are in; undefined when the source's is unknown (none added). */
  language: string | undefined;
  slideCount: number;
  outlineFile: string;
}

/** The layout rule the baseline's decks keep: at most six readable items on a slide. */
const MAX_ITEMS_PER_SLIDE = 6;

/** `academic_research_talk` → `Academic research talk`. */
function sceneLabel(scene: string): string {
  const text = scene.replace(/[_-]+/g, ' ').replace(/\s+/g, ' ').trim();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const SCRIPT_OF_LETTER: Array<[string, RegExp]> = [
  ['Latin', /\p{Script=Latin}/u],
  ['Kana', /[\p{Script=Hiragana}\p{Script=Katakana}]/u],
  ['Han', /\p{Script=Han}/u],
  ['Hangul', /\p{Script=Hangul}/u],
  ['Cyrillic', /\p{Script=Cyrillic}/u],
  ['Greek', /\p{Script=Greek}/u],
  ['Arabic', /\p{Script=Arabic}/u],
];

/** The writing system most letters of the text are in (undefined without letters). */
function mainScript(text: string): string | undefined {
  const counts = new Map<string, number>();
  for (const [letter] of text.matchAll(/\p{L}/gu)) {
    const script = SCRIPT_OF_LETTER.find(([, pattern]) => pattern.test(letter))?.[0] ?? 'Other';
    counts.set(script, (counts.get(script) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0];
}

/**
 * The cover's subtitle: "For <audience>" in the deck's language when conditioned (the audience's
 * name alone when the language has no scaffolding words), the case's scene when agnostic, else what
 * the planner proposed. A subtitle in another script than the slides (an English scene on a Chinese
 * deck) is not used: the cover then lists the deck's slide titles instead (see writeOutlinePptx).
 */
function coverSubtitle(
  request: BaselineDeckRequest,
  words: DeckScaffolding | undefined,
  outline: DeckOutline,
): string {
  const audience = audienceLabel(request.audience, words);
  const ours =
    request.condition === 'audience_conditioned'
      ? words
        ? words.forAudience(audience)
        : audience
      : request.scene?.trim()
        ? sceneLabel(request.scene)
        : '';
  const body = outline.slides.flatMap((slide) => [slide.title, ...slide.bullets]).join('\n');
  const deckScript = mainScript(body);
  for (const candidate of [ours, outline.subtitle.trim()]) {
    if (candidate && (deckScript === undefined || mainScript(candidate) === deckScript)) return candidate;
  }
  return '';
}

/**
 * What every baseline deck keeps, whichever planner made the outline: the deck's title, no bullet
 * that repeats or nearly copies an earlier one (see near-duplicate-text.ts), at most six bullets a
 * slide, and no slide left without content.
 */
function finishOutline(outline: DeckOutline, title: string | undefined): DeckOutline {
  const kept = new BulletRegister();
  const slides = outline.slides
    .map((slide) => ({
      ...slide,
      bullets: slide.bullets
        .map((bullet) => bullet.trim())
        .filter((bullet) => kept.add(bullet))
        .slice(0, MAX_ITEMS_PER_SLIDE),
    }))
    .filter((slide) => slide.bullets.length > 0 || slide.table || slide.chart);
  if (slides.length === 0) {
    throw new InputError('the planned outline has no slide with content', { code: 'empty_outline' });
  }
  return { ...outline, title: title?.trim() || outline.title, slides };
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
  const language = request.language ?? (await detectSourceLanguage(request.sourceText));
  const words = scaffoldingFor(language);
  const planned =
    planner === 'lexical'
      ? planLexicalOutline(request.sourceText, {
          fallbackTitle: request.caseLabel,
          maxSlides,
          ...(request.title ? { title: request.title } : {}),
          ...(language ? { language } : {}),
          ...(profile ? { audienceProfile: profile, audienceId: request.audience } : {}),
          ...(profile && request.audiencePreferences
            ? { audiencePreferences: request.audiencePreferences }
            : {}),
        })
      : (
          await planLlmOutline(planner, {
            sourceText: request.sourceText,
            condition: request.condition,
            audience: request.audience,
            maxSlides,
            ...(language ? { language } : {}),
            ...(profile ? { audienceProfile: profile } : {}),
            ...(request.extraInstructions ? { extraInstructions: request.extraInstructions } : {}),
          })
        ).outline;
  const finished = finishOutline(planned, request.title);
  const outline = { ...finished, subtitle: coverSubtitle(request, words, finished) };
  const outlineFile = join(request.deckDir, 'deck_outline.json');
  await writeJson(outlineFile, deckOutlineSchema, outline);
  const slideCount = await writeOutlinePptx(outline, request.outputDeckPath);
  return { outline, language: words ? language : undefined, slideCount, outlineFile };
}
