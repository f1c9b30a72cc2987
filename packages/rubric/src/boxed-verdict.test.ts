import { describe, expect, it } from 'vitest';
import {
  boxedCaptures,
  extractBoxed,
  normalizeBoxedToken,
  pythonStrip,
  readLenientVerdict,
  readStrictVerdict,
  verdictOfStoredAnswer,
} from './boxed-verdict';

describe('readStrictVerdict (PresentBench main judge.py)', () => {
  it.each([
    // [answer, stored answer, verdict]
    ['The deck is fine.\n\\boxed{yes}', 'yes', 'yes'],
    ['\\boxed{No}', 'No', 'no'],
    ['Final answer: \\boxed{\\text{Yes}}', 'Yes', 'yes'],
    ['\\boxed{\\textbf{NO}}.', 'NO', 'no'],
    ['**Answer:** $\\boxed{\\text{no}}$', 'no', 'no'],
    ['\\boxed{ yes. }', 'yes', 'yes'],
    // the first box reads yes/no: it wins, later boxes are ignored
    ['At first glance \\boxed{yes}, but Slide 9 repeats Slide 8: \\boxed{no}', 'yes', 'yes'],
    // the template quoted first does not read yes/no: the last box wins, whatever it says
    ['I must answer with \\boxed{...}. Slide 4 breaks the flow, so \\boxed{no}', 'no', 'no'],
    ['Format: \\boxed{answer}. Verdict: \\boxed{maybe}', 'maybe', 'other'],
    ['\\boxed{maybe}', 'maybe', 'other'],
    ['\\boxed{not applicable}', 'not applicable', 'other'],
    // markdown and quotes are not dropped by judge.py
    ['\\boxed{**Yes**}', '**Yes**', 'other'],
    ['\\boxed{"no"}', '"no"', 'other'],
    ['\\boxed{Yes!}', 'Yes!', 'other'],
    // `\text{not\ applicable}`: `\ ` is no command, the backslash stays
    ['\\boxed{\\text{not\\ applicable}}', 'not\\ applicable', 'other'],
    ['\\boxed{\\large no}', 'no', 'no'],
    // `\text{}` leaves nothing, which is an answer (stored empty)
    ['\\boxed{\\text{}}', '', 'other'],
  ])('%j → stored %j (%s)', (text, stored, verdict) => {
    const reading = readStrictVerdict(text);
    expect(reading?.answer).toBe(stored);
    expect(verdictOfStoredAnswer(reading?.answer as string)).toBe(verdict);
  });

  it.each([
    'Yes, the deck satisfies the requirement.',
    '\\boxed{}',
    '\\boxed{yes',
    '\\boxed {yes}',
    '```json\n{"answer": "yes"}\n```',
    '',
  ])('%j has no box judge.py reads (it asks again)', (text) => {
    expect(readStrictVerdict(text)).toBeNull();
  });

  it('captures up to the first closing brace, as `\\boxed\\{([^}]+)\\}` does', () => {
    expect(boxedCaptures('\\boxed{\\text{Yes}} and \\boxed{a{b}c}')).toEqual(['\\text{Yes', 'a{b']);
    expect(readStrictVerdict('\\boxed{\\text{Yes}}')).toEqual({ answer: 'Yes', raw: '\\text{Yes' });
  });

  it("strips Python's whitespace, not JavaScript's", () => {
    // U+001F is whitespace to Python's str.strip(); U+FEFF is not (JavaScript's trim() strips it)
    expect(pythonStrip('\u001f yes \u0085')).toBe('yes');
    expect(pythonStrip('\ufeffyes')).toBe('\ufeffyes');
    expect(normalizeBoxedToken(' \\textbf\u3000{Yes} . ')).toBe('Yes');
    expect(verdictOfStoredAnswer('\ufeffyes')).toBe('other');
  });
});

describe('readLenientVerdict (--parse lenient)', () => {
  it.each([
    ['\\boxed{"no"}', 'no'],
    ['\\boxed{**Yes**}', 'yes'],
    ['\\boxed{Yes!}', 'yes'],
    ['\\boxed{not\\ applicable}', 'not_applicable'],
    ['\\boxed{n/a}', 'not_applicable'],
    ['\\boxed{\\textsc{Yes}}', 'yes'],
    ['\\boxed{是}', 'yes'],
    // the last readable boxed verdict wins
    ['At first glance \\boxed{yes}, but Slide 9 repeats Slide 8: \\boxed{no}', 'no'],
  ])('%j → %s', (text, expected) => {
    expect(readLenientVerdict(text).answer).toBe(expected);
  });

  it.each(['\\boxed{partially}', '\\boxed{maybe}', '\\boxed{Yes, mostly}', ''])(
    '%j is unreadable',
    (text) => {
      expect(readLenientVerdict(text).answer).toBeNull();
    },
  );

  it('extracts nested braces in full', () => {
    expect(extractBoxed('a \\boxed{\\text{x}} b \\boxed {y}')).toEqual(['\\text{x}', 'y']);
    expect(readLenientVerdict('\\boxed{\\text{Yes}}')).toEqual({ answer: 'yes', raw: '\\text{Yes}' });
  });
});
