import { renderDeck } from '@xsb/decks';
import type { RenderSlides } from './evaluate-job';

/** The default slide renderer of image mode: `renderDeck` of @xsb/decks (PNG; PPTX needs LibreOffice). */
export const renderSlidesWithDecks: RenderSlides = async (deckFile, outDir) =>
  (await renderDeck(deckFile, { outDir })).map((file, i) => ({
    index: i + 1,
    file,
    mediaType: 'image/png' as const,
  }));
