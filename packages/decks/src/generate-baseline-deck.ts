import { join } from 'node:path';
import { type Condition, InputError, writeJson } from '@xsb/core';
import type { Judge } from '@xsb/llm';
import type { LexicalPreferences } from '@xsb/weights';
import { audienceLabel, type DeckScaffolding, scaffoldingFor } from './deck-scaffolding';
import { detectSourceLanguage } from './detect-source-language';
import { hasGlyphDebris } from './glyph-debris';
import { mainScript } from './main-script';
import { BulletRegister } from './near-duplicate-text';
import { planLexicalOutline } from './plan-lexical-outline';
import { type LlmOutlineInput, planLlmOutline } from './plan-llm-outline';
import { type DeckOutline, deckOutlineSchema } from './schemas/deck-outline';
import { agendaOf, writeOutlinePptx } from './write-outline-pptx';

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

/** The layout rule the baseline's decks keep: at most six readable items on a slide. */
const MAX_ITEMS_PER_SLIDE = 6;

/** `academic_research_talk` → `Academic research talk`. */
function sceneLabel(scene: string): string {
  const text = scene.replace(/[_-]+/g, ' ').replace(/\s+/g, ' ').trim();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A scene given as an id (`classroom_lecture`): English words joined by `_` or `-`, not a phrase. */
const SCENE_ID = /^[a-z0-9]+(?:[_-][a-z0-9]+)+$/;

/**
 * The scene as the cover names it, in the deck's language. A scene id has its name in the language's
 * scaffolding (`classroom_lecture` → "Vorlesung"), else — for English, or a source whose language is
 * not known — the id read as words; an id with no name in the deck's known, non-English language gets
 * none (an English "Classroom lecture" on a German deck is what the cover must not say). A scene
 * written as a phrase ("Vortrag an der Volkshochschule") is the user's own words, shown as written.
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

/**
 * The cover's subtitle: what a model planner proposed, else "For <audience>" in the deck's language
 * when conditioned (the audience's name alone when the language has no scaffolding words), the
 * case's scene in the deck's language when agnostic (sceneInLanguage). A subtitle in another script
 * than the slides (an English scene on a Chinese deck) is not used: the cover then lists the deck's
 * slide titles instead (see writeOutlinePptx).
 */
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
  // A model planner's own subtitle is written for the audience from the source: it comes first.
  for (const candidate of [outline.subtitle.trim(), ours]) {
    if (candidate && (deckScript === undefined || mainScript(candidate) === deckScript)) return candidate;
  }
  return '';
}

/**
 * The outline with what its cover shows under the title: the subtitle (coverSubtitle), else the
 * agenda the writer lists, else — a deck of untitled sections in an unknown language, with no
 * scene — the first bullet of the first slide that has two or more, moved (not copied) to the
 * cover, else the case label. A cover never holds its title alone.
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

/**
 * What every baseline deck keeps, whichever planner made the outline: a title, no bullet
 * that repeats or nearly copies an earlier one (see near-duplicate-text.ts), no bullet with PDF glyph
 * debris ("f 6 = id", see glyph-debris.ts), at most six bullets a slide, and no slide left without
 * content.
 */
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

type PlannedRequest = Omit<BaselineDeckRequest, 'outputDeckPath' | 'deckDir'>;

/** What the model planner is asked for one deck (the request it sends: buildOutlineRequest of this). */
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

/** The outline of the offline judge: the lexical planner's rule (plan-lexical-outline.ts). */
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

/**
 * The built-in `xsb-baseline` generator: source (+ audience profile when conditioned) → outline
 * (from `judge`: the model's outline, or the offline judge's deterministic extractive planner) → PPTX.
 * The outline is kept as `deck_outline.json` in `deckDir` when one is given. The source's language
 * (detected with eld unless given) decides the words the deck adds; the cover carries the title of
 * the case's metadata and the audience or scene (see coverSubtitle).
 */
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
