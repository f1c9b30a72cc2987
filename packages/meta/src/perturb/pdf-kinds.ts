import type { Deck } from '@xsb/core';
import { PDFDocument } from 'pdf-lib';
import type { PerturbationKind } from '../schemas/meta-perturbation';
import {
  chooseUnits,
  contentSlidePositions,
  droppedOutcome,
  duplicatedOutcome,
  type KindOutcome,
  shuffledOutcome,
  skippedOutcome,
} from './kind-outcome';

/** The kinds a PDF deck supports: whole pages can move, text cannot be rewritten faithfully. */
const PDF_KINDS: ReadonlySet<PerturbationKind> = new Set([
  'drop_slides',
  'shuffle_slides',
  'duplicate_slides',
]);

const PDF_TEXT_SKIP_REASON =
  'a PDF deck supports only page-level kinds (drop, shuffle, duplicate): its text, fonts and boxes cannot be rewritten faithfully; perturb the PPTX instead';

/** PDF pages carry no notes the reader sees. */
const views = (deck: Deck) => deck.slides.map((slide) => ({ visible_text: slide.visible_text, notes: '' }));

async function editPages(
  document: PDFDocument,
  deck: Deck,
  kind: PerturbationKind,
  content: number[],
  variant: { severity: number; random: () => number },
): Promise<KindOutcome> {
  if (kind === 'drop_slides') {
    const chosen = chooseUnits(content, variant);
    for (const position of [...chosen].sort((a, b) => b - a)) document.removePage(position);
    return droppedOutcome(deck, content.length, chosen, views(deck), 'page');
  }
  if (kind === 'shuffle_slides') {
    const chosen = chooseUnits(content, variant, 2);
    const { order, outcome } = shuffledOutcome(deck, content.length, chosen, views(deck), variant.random);
    const pages = document.getPages();
    for (let index = pages.length - 1; index >= 0; index -= 1) document.removePage(index);
    for (const position of order) document.addPage(pages[position]!);
    return outcome;
  }
  const chosen = chooseUnits(content, variant);
  for (const position of [...chosen].sort((a, b) => b - a)) {
    const [copy] = await document.copyPages(document, [position]);
    document.insertPage(position + 1, copy!);
  }
  return duplicatedOutcome(deck, content.length, chosen, views(deck), 'page');
}

/** Page-level damage with pdf-lib; metadata left as it was, so the same input and seed give the same bytes. */
export async function perturbPdf(
  bytes: Uint8Array,
  deck: Deck,
  kind: PerturbationKind,
  severity: number,
  random: () => number,
): Promise<{ outcome: KindOutcome; bytes?: Uint8Array }> {
  const content = contentSlidePositions(deck);
  const none = (reason: string) => ({ outcome: skippedOutcome(reason, content.length) });
  if (!PDF_KINDS.has(kind)) return { outcome: skippedOutcome(PDF_TEXT_SKIP_REASON) };
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
  const outcome = await editPages(document, deck, kind, content, { severity, random });
  return { outcome, bytes: await document.save({ updateFieldAppearances: false }) };
}
