import { describe, expect, it } from 'vitest';
import { aggregateCorrectness } from './aggregate-correctness';
import { extractClaimsLexically } from './extract-claims-lexically';
import { judgeAnswerabilityLexically } from './judge-answerability-lexically';
import { contentTokens, extractNumbers, splitSentences } from './lexical-tokens';
import { chunkSourceForRetrieval, SourceRetriever } from './source-retriever';
import { makeDeck } from './testing';
import { verifyClaimLexically } from './verify-claims-lexically';

const probe = (id: string, answer: string, question = 'q?') => ({
  probe_id: id,
  source_case_id: 'c',
  scene: 's',
  question,
  answer,
  evidence: [],
  level: 2,
  modality: 'text',
  theme: 't',
  metadata: {},
});

describe('lexical tokens', () => {
  it('normalises numbers and stems words', () => {
    expect(extractNumbers('1,200 homes, 48.0% and 3.50 dollars in 2023')).toEqual([
      '1200',
      '48',
      '3.5',
      '2023',
    ]);
    expect(contentTokens('The results improved outcomes')).toEqual(['result', 'improv', 'outcom']);
    expect(splitSentences('• First point. Second point\n- Third')).toEqual([
      'First point.',
      'Second point',
      'Third',
    ]);
  });
});

describe('lexical answerability', () => {
  const deck = makeDeck([
    'Results\nEnergy use fell 48 percent across homes',
    'Costs\nAbout 9,500 dollars each',
  ]);

  it('needs every number and enough key tokens, cites the best slide', () => {
    const [a, b, c, d] = judgeAnswerabilityLexically(deck, [
      probe('p1', 'Energy use fell by 48 percent.'),
      probe('p2', 'Energy use fell by 50 percent.'),
      probe('p3', 'Installation averaged 9500 dollars.'),
      probe('p4', 'Residents liked quieter bedrooms.'),
    ]);
    expect(a).toMatchObject({
      covered: true,
      cited_evidence: 'Slide 1',
      answer: 'Energy use fell 48 percent across homes',
    });
    expect(b).toMatchObject({ covered: false, confidence: 0 });
    expect(c).toMatchObject({ covered: true, cited_evidence: 'Slide 2' });
    expect(d).toMatchObject({ covered: false, cited_evidence: '' });
  });

  it('counts a number-only answer only where one of the probe terms stands near it', () => {
    const question = 'How many connected components does the complement of the circle have?';
    const unrelated = makeDeck(['Agenda\nPart 0: warm-up', 'Exercises\nSolve 2 of the 3 problems']);
    const stated = makeDeck([
      'Agenda\nPart 0: warm-up',
      'Jordan curve\nThe complement of a circle has 2 components',
    ]);
    const titled = makeDeck(['Circle complement\nInside region\nOutside region\nCount: 2']);
    const judge = (deck: typeof stated, answer: string, q = question) =>
      judgeAnswerabilityLexically(deck, [probe('p', answer, q)])[0]!;
    // "0" and "2" occur on the slides, but beside other things
    expect(judge(unrelated, '0')).toMatchObject({ covered: false, confidence: 0 });
    expect(judge(unrelated, '2')).toMatchObject({ covered: false, confidence: 0 });
    // the same number in the sentence that names the question's terms, or under a title that does
    expect(judge(stated, '2')).toMatchObject({ covered: true, cited_evidence: 'Slide 2' });
    expect(judge(titled, '2')).toMatchObject({ covered: true, cited_evidence: 'Slide 1' });
    // the probe's terms are topic words: German function and template words anchor nothing
    const german = makeDeck(['Übung\nDie Lösung ist 2 und die Aufgabe 3']);
    expect(
      judge(german, '2', 'Ergänzen Sie die Lücke: „Die Anzahl der Komponenten ist ____ und die“'),
    ).toMatchObject({ covered: false });
    expect(judge(stated, '2', 'q?')).toMatchObject({ covered: false });
  });

  it('never covers an answer with nothing to check', () => {
    expect(judgeAnswerabilityLexically(deck, [probe('p', 'Yes.')])[0]).toMatchObject({
      covered: false,
      confidence: 0,
    });
  });
});

describe('lexical correctness', () => {
  const source =
    'The pilot covered 120 homes. Energy use fell by 48 percent in winter. Costs averaged 9,500 dollars per home.';

  it('retrieves BM25 snippets and labels supported, contradicted and unsupported claims', () => {
    const retriever = new SourceRetriever(source, { chunkChars: 40 });
    expect(retriever.chunkCount).toBeGreaterThan(1);
    const label = (claim: string) => verifyClaimLexically(claim, retriever.search(claim, 2)).label;
    expect(label('Energy use fell 48 percent in winter')).toBe('supported');
    expect(label('Energy use fell 60 percent in winter')).toBe('contradicted');
    expect(label('Solar panels were installed on every roof')).toBe('unsupported');
  });

  it('chunks with a one-sentence overlap', () => {
    const chunks = chunkSourceForRetrieval('Aaaa one. Bbbb two. Cccc three.', 20);
    expect(chunks.map((c) => c.text)).toEqual(['Aaaa one. Bbbb two.', 'Bbbb two. Cccc three.']);
  });

  it('extracts checkable sentences with their slide and skips bare headings', () => {
    const claims = extractClaimsLexically(
      makeDeck(['Intro', 'Energy use fell 48 percent', 'Thanks for listening today everyone']),
      10,
    );
    expect(claims).toEqual([
      { claim_id: 's2_c1', slide_index: 2, text: 'Energy use fell 48 percent' },
      { claim_id: 's3_c1', slide_index: 3, text: 'Thanks for listening today everyone' },
    ]);
  });

  it('aggregates labels into a smoothed share that one weak claim cannot collapse', () => {
    expect(aggregateCorrectness({ supported: 10, unsupported: 0, contradicted: 0 })).toBe(1);
    expect(aggregateCorrectness({ supported: 10, unsupported: 1, contradicted: 0 })).toBeCloseTo(11 / 12, 12);
    expect(aggregateCorrectness({ supported: 0, unsupported: 1, contradicted: 0 })).toBe(0.5);
    expect(aggregateCorrectness({ supported: 0, unsupported: 0, contradicted: 1 })).toBeCloseTo(1 / 3, 12);
    expect(aggregateCorrectness({ supported: 0, unsupported: 0, contradicted: 0 })).toBeNull();
  });
});
