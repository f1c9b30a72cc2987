import type { Deck } from '@xsb/core';
import { escapeHtml } from '../html/escape-html';
import type { DeckThumbnails } from '../thumbnails/slide-thumbnails';

export interface DeckDrillDown {
  /** Element id of the `<details>`; rows elsewhere point at it with `data-deck`. */
  id: string;
  /** The summary line (plain text). */
  title: string;
  /** Extra HTML after the title in the summary line (badges). */
  badges?: string;
  facts: Array<[string, string]>;
  deck: Deck | null;
  /** Why the deck could not be read (then slides are unknown). */
  deckProblem?: string;
  thumbnails: DeckThumbnails;
  thumbnailWidth: number;
  /** HTML blocks below the slides (probe, claim, item tables). */
  sections: string[];
}

function slideStrip(drill: DeckDrillDown): string {
  const parsed = drill.deck?.slides ?? [];
  const count = Math.max(parsed.length, drill.thumbnails.slides.length);
  if (count === 0) return '<p class="note">No slides to show.</p>';
  const cards: string[] = [];
  for (let index = 1; index <= count; index++) {
    const slide = parsed[index - 1];
    const image = drill.thumbnails.slides[index - 1];
    const title = slide?.title ?? '';
    const picture = image
      ? `<img src="${image}" alt="slide ${index}" decoding="async">`
      : `<div class="text-card"><b>${escapeHtml(title || `Slide ${index}`)}</b>${escapeHtml((slide?.visible_text ?? '').slice(0, 400))}</div>`;
    cards.push(
      `<figure class="slide" data-slide="${index}">${picture}<figcaption>${index}${title ? ` · ${escapeHtml(title.slice(0, 80))}` : ''}</figcaption></figure>`,
    );
  }
  return `<div class="slides" style="--thumb-width: ${Math.round(drill.thumbnailWidth * 0.75)}px">${cards.join('')}</div>`;
}

/** One deck, collapsed until opened: facts, its slides (or their text), then the tables citing them. */
export function renderDeckDrillDown(drill: DeckDrillDown): string {
  const facts = drill.facts
    .map(([label, value]) => `<dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd>`)
    .join('');
  const problems = [drill.deckProblem, drill.thumbnails.note]
    .filter((note): note is string => Boolean(note))
    .map((note) => `<p class="note">${escapeHtml(note)}</p>`)
    .join('');
  return `<details class="deck" id="${escapeHtml(drill.id)}">
<summary>${escapeHtml(drill.title)} ${drill.badges ?? ''}</summary>
<div class="deck-body">
<dl class="facts">${facts}</dl>
${problems}
${slideStrip(drill)}
<div class="slide-note" aria-live="polite">Click a probe, claim or item to see the slide it cites.</div>
${drill.sections.join('\n')}
</div>
</details>`;
}
