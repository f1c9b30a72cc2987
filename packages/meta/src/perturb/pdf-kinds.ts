import type { Deck } from '@xsb/core';
import { PDFDocument } from 'pdf-lib';
import type { PerturbationKind } from '../schemas/meta-perturbation';
import { contentSlidePositions, excerpt, type KindOutcome } from './kind-outcome';
import { derangement, sampleIndices, unitsFor } from './text-patterns';

/** The kinds a PDF deck supports: whole pages can move, text cannot be rewritten faithfully. */
export const PDF_KINDS: ReadonlySet<PerturbationKind> = new Set([
  'drop_slides',
  'shuffle_slides',
  'duplicate_slides',
]);

export const PDF_TEXT_SKIP_REASON =
  'a PDF deck supports only page-level kinds (drop, shuffle, duplicate): its text, fonts and boxes cannot be rewritten faithfully; perturb the PPTX instead';

const view = (deck: Deck, position: number) => ({
  visible_text: deck.slides[position]!.visible_text,
  notes: '',
});

interface PageEdit {
  document: PDFDocument;
  deck: Deck;
  /** Positions of the content pages (the eligible units). */
  content: number[];
  severity: number;
  random: () => number;
}

const positionsOf = (deck: Deck) => deck.slides.map((_, position) => position);

function chooseContent(edit: PageEdit, minimum?: number): number[] {
  const { content, severity, random } = edit;
  return sampleIndices(content.length, unitsFor(severity, content.length, minimum), random).map(
    (index) => content[index]!,
  );
}

function dropPages(edit: PageEdit): KindOutcome {
  const { document, deck, content } = edit;
  const chosen = chooseContent(edit);
  for (const position of [...chosen].sort((a, b) => b - a)) document.removePage(position);
  const dropped = new Set(chosen);
  return {
    eligible: content.length,
    changed: chosen.length,
    changes: chosen.map((position) => ({
      slide: position + 1,
      field: 'slide',
      old: excerpt(deck.slides[position]!.visible_text),
      new: '',
      detail: 'page removed',
    })),
    expectedSlides: positionsOf(deck)
      .filter((position) => !dropped.has(position))
      .map((position) => view(deck, position)),
  };
}

function shufflePages(edit: PageEdit): KindOutcome {
  const { document, deck, content, random } = edit;
  const chosen = chooseContent(edit, 2);
  const cycle = derangement(chosen.length, random);
  const order = positionsOf(deck);
  chosen.forEach((position, index) => {
    order[position] = chosen[cycle[index]!]!;
  });
  const pages = document.getPages();
  for (let index = pages.length - 1; index >= 0; index -= 1) document.removePage(index);
  for (const position of order) document.addPage(pages[position]!);
  return {
    eligible: content.length,
    changed: chosen.length,
    changes: order
      .map((from, to) => ({ from, to }))
      .filter(({ from, to }) => from !== to)
      .map(({ from, to }) => ({
        slide: from + 1,
        field: 'position' as const,
        old: String(from + 1),
        new: String(to + 1),
        detail: excerpt(deck.slides[from]!.title || deck.slides[from]!.visible_text),
      }))
      .sort((a, b) => a.slide - b.slide),
    expectedSlides: order.map((position) => view(deck, position)),
  };
}

async function duplicatePages(edit: PageEdit): Promise<KindOutcome> {
  const { document, deck, content } = edit;
  const chosen = chooseContent(edit);
  for (const position of [...chosen].sort((a, b) => b - a)) {
    const [copy] = await document.copyPages(document, [position]);
    document.insertPage(position + 1, copy!);
  }
  const copies = new Set(chosen);
  return {
    eligible: content.length,
    changed: chosen.length,
    changes: chosen.map((position) => ({
      slide: position + 1,
      field: 'slide',
      old: '',
      new: excerpt(deck.slides[position]!.visible_text),
      detail: `copy of page ${position + 1} inserted after it`,
    })),
    expectedSlides: positionsOf(deck).flatMap((position) =>
      copies.has(position) ? [view(deck, position), view(deck, position)] : [view(deck, position)],
    ),
  };
}

/**
 * Page-level damage to a PDF deck with pdf-lib (pages removed, reordered or copied; the document is
 * saved without touching its metadata, so the same input and seed give the same bytes).
 */
export async function perturbPdf(
  bytes: Uint8Array,
  deck: Deck,
  kind: PerturbationKind,
  severity: number,
  random: () => number,
): Promise<{ outcome: KindOutcome; bytes?: Uint8Array }> {
  const content = contentSlidePositions(deck);
  const none = (reason: string) => ({
    outcome: { changes: [], eligible: content.length, changed: 0, skipped: reason },
  });
  if (!PDF_KINDS.has(kind))
    return { outcome: { changes: [], eligible: 0, changed: 0, skipped: PDF_TEXT_SKIP_REASON } };
  if (content.length === 0)
    return none('the deck has no content page (every page but the first with text beyond its title)');
  if (kind === 'shuffle_slides' && content.length < 2)
    return none('the deck has fewer than two content pages to reorder');
  const document = await PDFDocument.load(bytes, { updateMetadata: false });
  if (document.getPageCount() !== deck.slide_count) {
    throw new RangeError(
      `pdf-lib sees ${document.getPageCount()} pages where the deck reader saw ${deck.slide_count}`,
    );
  }
  const edit: PageEdit = { document, deck, content, severity, random };
  const outcome =
    kind === 'drop_slides'
      ? dropPages(edit)
      : kind === 'shuffle_slides'
        ? shufflePages(edit)
        : await duplicatePages(edit);
  return { outcome, bytes: await document.save({ updateFieldAppearances: false }) };
}
