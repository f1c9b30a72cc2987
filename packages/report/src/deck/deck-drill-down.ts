import { escapeHtml } from '../html/escape-html';
import { renderFacts } from '../html/sections';
import { noThumbnails } from '../thumbnails/slide-thumbnails';
import type { LoadedDeck } from './load-decks';

export interface DeckDrillDown {
  /** Element id of the `<details>`; rows elsewhere point at it with `data-deck`. */
  id: string;
  title: string;
  /** HTML after the title in the summary line (badges). */
  badges?: string;
  facts: Array<[string, string]>;
  /** Undefined when the deck was not found. */
  loaded: LoadedDeck | undefined;
  thumbnailWidth: number;
  /** HTML blocks below the slides (probe, claim, item tables). */
  sections: string[];
  /** Slides to mark in the strip (1-based index → why, e.g. text under 3:1 contrast). */
  slideFlags?: ReadonlyMap<number, string>;
}

const NOT_FOUND = noThumbnails('deck not found');

function slideStrip(drill: DeckDrillDown): string {
  const parsed = drill.loaded?.deck?.slides ?? [];
  const images = (drill.loaded?.thumbnails ?? NOT_FOUND).slides;
  const count = Math.max(parsed.length, images.length);
  if (count === 0) return '<p class="note">No slides to show.</p>';
  const cards: string[] = [];
  for (let index = 1; index <= count; index++) {
    const slide = parsed[index - 1];
    const image = images[index - 1];
    const title = slide?.title ?? '';
    const picture = image
      ? `<img src="${image}" alt="slide ${index}" decoding="async">`
      : `<div class="text-card"><b>${escapeHtml(title || `Slide ${index}`)}</b>${escapeHtml((slide?.visible_text ?? '').slice(0, 400))}</div>`;
    const flag = drill.slideFlags?.get(index);
    cards.push(
      `<figure class="slide${flag ? ' flagged' : ''}" data-slide="${index}">${picture}<figcaption>${index}${title ? ` · ${escapeHtml(title.slice(0, 80))}` : ''}${flag ? ` · ⚠ ${escapeHtml(flag)}` : ''}</figcaption></figure>`,
    );
  }
  return `<div class="slides" style="--thumb-width: ${Math.round(drill.thumbnailWidth * 0.75)}px">${cards.join('')}</div>`;
}

/** One deck, collapsed until opened: facts, its slides (or their text), then the tables citing them. */
export function renderDeckDrillDown(drill: DeckDrillDown): string {
  const problems = [drill.loaded?.problem, (drill.loaded?.thumbnails ?? NOT_FOUND).note]
    .filter((note): note is string => Boolean(note))
    .map((note) => `<p class="note">${escapeHtml(note)}</p>`)
    .join('');
  return `<details class="deck" id="${escapeHtml(drill.id)}">
<summary>${escapeHtml(drill.title)} ${drill.badges ?? ''}</summary>
<div class="deck-body">
${renderFacts(drill.facts)}
${problems}
${slideStrip(drill)}
<div class="slide-note" aria-live="polite">Click a probe, claim or item to see the slide it cites.</div>
${drill.sections.join('\n')}
</div>
</details>`;
}
