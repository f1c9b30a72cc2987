import { join } from 'node:path';
import { type Condition, InputError, writeJson } from '@xsb/core';
import type { Judge } from '@xsb/llm';
import { detectSourceLanguage } from '@xsb/sources';
import type { LexicalPreferences } from '@xsb/weights';
import { audienceLabel, type DeckScaffolding, scaffoldingFor } from './deck-scaffolding';
import { hasGlyphDebris } from './glyph-debris';
import { mainScript } from './main-script';
import { BulletRegister } from './near-duplicate-text';
import { planLexicalOutline } from './plan-lexical-outline';
import { type LlmOutlineInput, planLlmOutline } from './plan-llm-outline';
import { type DeckOutline, deckOutlineSchema } from './schemas/deck-outline';
import { agendaOf, MAX_ITEMS_PER_SLIDE, writeOutlinePptx } from './write-outline-pptx';

/** The system name of the built-in generator in run sheets and the deck tree. */
export const BASELINE_SYSTEM = 'xsb-baseline';

/** Slides of a baseline deck when the caller names no limit (the CLI's `--max-slides` default). */
export const DEFAULT_MAX_SLIDES = 8;

export interface BaselineDeckRequest {
  caseLabel: string;
  condition: Condition;
  audience: string;
  sourceText: string;
  /** The deck title (`title` of the case's `source_metadata.json`); without it the planner's. */
  title?: string;
  /** The case's scene (`scene` of `source_metadata.json`): the agnostic deck's subtitle. */
  scene?: string;
  /** ISO 639-1; detected when not given. */
  language?: string;
  /** The audience profile description; required for `audience_conditioned`. */
  audienceProfile?: string;
  /** The lexical planner's preferences of a user profile (built-in audiences are known by id). */
  audiencePreferences?: LexicalPreferences;
  maxSlides?: number;
  outputDeckPath: string;
  /** Where `deck_outline.json` goes (the normalized deck folder); without it no outline file is written. */
  deckDir?: string;
  /** Extra model instructions (the run sheet's prompt file); the lexical planner ignores them. */
  extraInstructions?: string;
}

export interface BaselineDeckResult {
  outline: DeckOutline;
  /** The language the deck's added words are in; undefined when the source's is unknown (none added). */
  language: string | undefined;
  slideCount: number;
  /** The `deck_outline.json` written beside the deck (undefined without `deckDir`). */
  outlineFile: string | undefined;
}

function sceneLabel(scene: string): string {
  const text = scene.replace(/[_-]+/g, ' ').replace(/\s+/g, ' ').trim();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const SCENE_ID = /^[a-z0-9]+(?:[_-][a-z0-9]+)+$/;

/**
 * The scene in the deck's language: an id without a name in a known non-English language gets none (an
 * English "Classroom lecture" on a German deck is what the cover must not say); a phrase is shown as written.
 */
function sceneInLanguage(
  scene: string,
  language: string | undefined,
  words: DeckScaffolding | undefined,
): string {
  const id = scene.trim();
  if (!SCENE_ID.test(id)) return sceneLabel(id);
  const named = words?.scenes[id];
  if (named) return named;
  return language === undefined || words?.language === 'en' ? sceneLabel(id) : '';
}

/** The model's subtitle, else "For <audience>" or the scene; never one in another script than the slides. */
function coverSubtitle(
  request: BaselineDeckRequest,
  language: string | undefined,
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
        ? sceneInLanguage(request.scene, language, words)
        : '';
  const body = outline.slides.flatMap((slide) => [slide.title, ...slide.bullets]).join('\n');
  const deckScript = mainScript(body);
  for (const candidate of [outline.subtitle.trim(), ours]) {
    if (candidate && (deckScript === undefined || mainScript(candidate) === deckScript)) return candidate;
  }
  return '';
}

/**
 * A cover never holds its title alone: the subtitle, else the agenda, else a bullet moved (not copied)
 * from the first slide with two or more, else the case label.
 */
function withCover(
  request: BaselineDeckRequest,
  language: string | undefined,
  words: DeckScaffolding | undefined,
  outline: DeckOutline,
): DeckOutline {
  const subtitle = coverSubtitle(request, language, words, outline);
  if (subtitle || agendaOf(outline).length > 0) return { ...outline, subtitle };
  const donor = outline.slides.findIndex((slide) => slide.bullets.length >= 2);
  if (donor < 0) return { ...outline, subtitle: request.caseLabel.replace(/[_-]+/g, ' ') };
  const slides = outline.slides.map((slide, index) =>
    index === donor ? { ...slide, bullets: slide.bullets.slice(1) } : slide,
  );
  return { ...outline, subtitle: outline.slides[donor]?.bullets[0] ?? '', slides };
}

/** What every baseline deck keeps, whichever planner made the outline. */
function finishOutline(outline: DeckOutline, title: string | undefined): DeckOutline {
  const kept = new BulletRegister();
  const slides = outline.slides
    .map((slide) => ({
      ...slide,
      bullets: slide.bullets
        .map((bullet) => bullet.trim())
        .filter((bullet) => !hasGlyphDebris(bullet) && kept.add(bullet))
        .slice(0, MAX_ITEMS_PER_SLIDE),
    }))
    .filter((slide) => slide.bullets.length > 0 || slide.table || slide.chart);
  if (slides.length === 0) {
    throw new InputError('the planned outline has no slide with content', { code: 'empty_outline' });
  }
  // The lexical planner was given the metadata title already; a model's own title (tailored to the
  // audience, from the source) is kept, the metadata's only standing in for an empty one.
  return { ...outline, title: outline.title.trim() || title?.trim() || outline.title, slides };
}

/** A conditioned deck is planned for its audience: without the profile it cannot be (InputError). */
export function requireAudienceProfile(
  request: Pick<BaselineDeckRequest, 'condition' | 'audience' | 'audienceProfile'>,
): void {
  if (request.condition === 'audience_conditioned' && !request.audienceProfile?.trim()) {
    throw new InputError(
      `no audience profile for "${request.audience}": a conditioned deck needs the audience description`,
      { code: 'missing_profile' },
    );
  }
}

export type PlannedRequest = Omit<BaselineDeckRequest, 'outputDeckPath' | 'deckDir'>;

export function llmOutlineInputOf(request: PlannedRequest, language: string | undefined): LlmOutlineInput {
  const profile = request.condition === 'audience_conditioned' ? request.audienceProfile : undefined;
  return {
    sourceText: request.sourceText,
    condition: request.condition,
    audience: request.audience,
    maxSlides: request.maxSlides ?? DEFAULT_MAX_SLIDES,
    ...(language ? { language } : {}),
    ...(profile ? { audienceProfile: profile } : {}),
    ...(request.extraInstructions ? { extraInstructions: request.extraInstructions } : {}),
  };
}

function lexicalOutlineOf(request: PlannedRequest, language: string | undefined): DeckOutline {
  const profile = request.condition === 'audience_conditioned' ? request.audienceProfile : undefined;
  return planLexicalOutline(request.sourceText, {
    fallbackTitle: request.caseLabel,
    maxSlides: request.maxSlides ?? DEFAULT_MAX_SLIDES,
    ...(request.title ? { title: request.title } : {}),
    ...(language ? { language } : {}),
    ...(profile ? { audienceProfile: profile, audienceId: request.audience } : {}),
    ...(profile && request.audiencePreferences ? { audiencePreferences: request.audiencePreferences } : {}),
  });
}

/** The built-in `xsb-baseline` generator: source → outline (model or offline judge) → PPTX. */
export async function generateBaselineDeck(
  request: BaselineDeckRequest,
  judge: Judge,
): Promise<BaselineDeckResult> {
  requireAudienceProfile(request);
  const language = request.language ?? (await detectSourceLanguage(request.sourceText));
  const words = scaffoldingFor(language);
  const planned =
    judge.kind === 'offline'
      ? lexicalOutlineOf(request, language)
      : (await planLlmOutline(judge.client, llmOutlineInputOf(request, language))).outline;
  const outline = withCover(request, language, words, finishOutline(planned, request.title));
  const outlineFile = request.deckDir ? join(request.deckDir, 'deck_outline.json') : undefined;
  if (outlineFile) await writeJson(outlineFile, deckOutlineSchema, outline);
  const slideCount = await writeOutlinePptx(outline, request.outputDeckPath);
  return { outline, language: words ? language : undefined, slideCount, outlineFile };
}
