import type { VerifiedClaim } from '@xsb/core';
import { badge, countCell, renderTable, text } from '../html/html-table';

const LABEL_TONE = { supported: 'good', contradicted: 'bad', unsupported: 'warn' } as const;

/** Claims of one deck: slide, label, claim, the judge's rationale and the best source snippet it used. */
export function claimTable(id: string, claims: readonly VerifiedClaim[]): string {
  return renderTable({
    id,
    rows: claims,
    search: true,
    filters: [{ key: 'label', label: 'label', value: (claim) => claim.label }],
    rowData: (claim) => ({
      slides: String(claim.slide_index),
      label: `claim ${claim.claim_id} (${claim.label})`,
    }),
    empty: 'No claims were extracted from this deck.',
    columns: [
      { label: 'slide', cell: (claim) => countCell(claim.slide_index) },
      {
        label: 'label',
        cell: (claim) => ({ html: badge(claim.label, LABEL_TONE[claim.label]), sort: claim.label }),
      },
      { label: 'claim', cell: (claim) => text(claim.text) },
      { label: 'rationale', cell: (claim) => text(claim.rationale) },
      {
        label: 'source snippet used',
        cell: (claim) => {
          const best = claim.snippets[0];
          if (!best) return text('(no snippet retrieved)');
          const shown = best.text.length > 320 ? `${best.text.slice(0, 320)}…` : best.text;
          return {
            html: `<div class="snippet">${text(`${best.chunk_id} (score ${best.score.toFixed(1)}): ${shown}`).html}</div>`,
          };
        },
      },
    ],
  });
}
