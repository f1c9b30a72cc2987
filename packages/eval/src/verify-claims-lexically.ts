import type { ClaimLabel } from '@xsb/core';
import { contentTokens, extractNumbers } from './lexical-tokens';
import type { RetrievedSnippet } from './source-retriever';

/** Share of a claim's distinct content words its snippets must contain to support it. */
export const LEXICAL_SUPPORT_RECALL = 0.6;

/** The offline claim verifier `lexical` against the BM25 snippets (README: Verification); blind to negation. */
export function verifyClaimLexically(
  claim: string,
  snippets: readonly RetrievedSnippet[],
): { label: ClaimLabel; rationale: string } {
  const tokens = [...new Set(contentTokens(claim))];
  const numbers = [...new Set(extractNumbers(claim))];
  const snippetText = snippets.map((snippet) => snippet.text).join('\n');
  const snippetTokens = new Set(contentTokens(snippetText));
  const snippetNumbers = new Set(extractNumbers(snippetText));
  const found = tokens.filter((token) => snippetTokens.has(token)).length;
  const recall = tokens.length === 0 ? (numbers.length > 0 ? 1 : 0) : found / tokens.length;
  const missingNumbers = numbers.filter((n) => !snippetNumbers.has(n));
  const recallNote = `term recall ${found}/${tokens.length}`;
  if (snippets.length === 0)
    return { label: 'unsupported', rationale: 'no source snippet matched the claim' };
  if (numbers.length > 0 && missingNumbers.length > 0) {
    if (recall >= LEXICAL_SUPPORT_RECALL && snippetNumbers.size > 0)
      return {
        label: 'contradicted',
        rationale: `${recallNote}; number(s) ${missingNumbers.join(', ')} not in the matching source snippets, which state other numbers`,
      };
    return {
      label: 'unsupported',
      rationale: `${recallNote}; number(s) ${missingNumbers.join(', ')} not found`,
    };
  }
  if (recall >= LEXICAL_SUPPORT_RECALL)
    return {
      label: 'supported',
      rationale: numbers.length > 0 ? `${recallNote}; all numbers found` : recallNote,
    };
  return { label: 'unsupported', rationale: `${recallNote} below ${LEXICAL_SUPPORT_RECALL}` };
}
