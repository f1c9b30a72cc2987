import MiniSearch from 'minisearch';
import { contentTokens, splitSentences } from './lexical-tokens';

export interface SourceChunk {
  chunk_id: string;
  text: string;
}

export type RetrievedSnippet = {
  chunk_id: string;
  text: string;
  score: number;
};

/**
 * Source chunks for retrieval: sentences packed greedily up to `chunkChars` characters, each chunk
 * repeating the last sentence of the previous one so a fact split across a boundary is still found.
 */
export function chunkSourceForRetrieval(text: string, chunkChars: number): SourceChunk[] {
  const sentences = splitSentences(text);
  const chunks: SourceChunk[] = [];
  let current: string[] = [];
  let length = 0;
  const flush = () => {
    if (current.length === 0) return;
    chunks.push({ chunk_id: `c${String(chunks.length + 1).padStart(4, '0')}`, text: current.join(' ') });
  };
  for (const sentence of sentences) {
    if (length + sentence.length > chunkChars && current.length > 0) {
      flush();
      const carried = current[current.length - 1]!;
      current = carried.length < chunkChars / 2 ? [carried] : [];
      length = current.reduce((sum, s) => sum + s.length + 1, 0);
    }
    current.push(sentence);
    length += sentence.length + 1;
  }
  flush();
  return chunks;
}

/**
 * BM25 retrieval of source snippets (minisearch, whose ranking is BM25+) over the chunks, with the
 * same stopwords and stemming as the lexical judges so a claim and its source meet on the same terms.
 */
export class SourceRetriever {
  private readonly index: MiniSearch<SourceChunk & { id: number }>;
  private readonly chunks: SourceChunk[];

  constructor(sourceText: string, options: { chunkChars: number }) {
    this.chunks = chunkSourceForRetrieval(sourceText, options.chunkChars);
    this.index = new MiniSearch<SourceChunk & { id: number }>({
      fields: ['text'],
      storeFields: [],
      tokenize: (text) => contentTokens(text),
      processTerm: (term) => term,
      searchOptions: { combineWith: 'OR', prefix: false, fuzzy: false },
    });
    this.index.addAll(this.chunks.map((chunk, id) => ({ ...chunk, id })));
  }

  get chunkCount(): number {
    return this.chunks.length;
  }

  /** The `limit` best chunks for a query; ties keep source order. Scores rounded for stable output. */
  search(query: string, limit: number): RetrievedSnippet[] {
    if (contentTokens(query).length === 0) return [];
    const results = this.index.search(query);
    return results
      .map((result) => ({ id: result.id as number, score: result.score }))
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .slice(0, limit)
      .map(({ id, score }) => ({
        chunk_id: this.chunks[id]!.chunk_id,
        text: this.chunks[id]!.text,
        score: Number(score.toFixed(6)),
      }));
  }
}
