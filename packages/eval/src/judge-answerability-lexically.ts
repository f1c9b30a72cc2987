import type { Deck, Probe } from '@xsb/core';
import { contentTokens, extractNumbers, splitSentences, topicTerms } from './lexical-tokens';
import { type ProbeJudgment, uncoveredJudgment } from './probe-judgment';
import { slideVisibleText } from './slide-visible-text';

/**
 * The version of the lexical answerability rules, recorded in each score row it judges
 * (`metadata.lexical_rules`) and in the run manifest: rows of older rules (1: a number anywhere in the
 * deck; none recorded) are judged again instead of reused beside rows of these rules.
 */
export const LEXICAL_ANSWERABILITY_RULES = 2;

/** The reuse-key part that keeps the lexical judge's rows of other rules apart (none for a model judge). */
export function lexicalRulesKey(judgeId: string): { lexical_rules?: number } {
  return judgeId === 'lexical' ? { lexical_rules: LEXICAL_ANSWERABILITY_RULES } : {};
}

/** Share of the expected answer's key tokens the deck must contain for `covered`. */
export const LEXICAL_ANSWER_RECALL_THRESHOLD = 0.6;
/** The lower share that suffices when the answer has numbers and the deck states every one of them. */
export const LEXICAL_NUMERIC_ANSWER_RECALL_THRESHOLD = 0.3;

/** One sentence unit of a slide (a bullet line, or a sentence within a line): its numbers and terms. */
interface SentenceUnit {
  numbers: Set<string>;
  terms: Set<string>;
}

interface SlideIndex {
  index: number;
  tokens: Set<string>;
  numbers: Set<string>;
  sentences: string[];
  units: SentenceUnit[];
  /** Topic terms of the slide's title, the context of every line under it. */
  titleTerms: Set<string>;
}

function indexSlides(deck: Deck): SlideIndex[] {
  return deck.slides.map((slide) => {
    const text = slideVisibleText(slide);
    const sentences = splitSentences(text);
    return {
      index: slide.index,
      tokens: new Set(contentTokens(text)),
      numbers: new Set(extractNumbers(text)),
      sentences,
      units: sentences.map((sentence) => ({
        numbers: new Set(extractNumbers(sentence)),
        terms: new Set(topicTerms(sentence)),
      })),
      titleTerms: new Set(topicTerms(slide.title)),
    };
  });
}

const sharesAny = (terms: ReadonlySet<string>, wanted: readonly string[]) =>
  wanted.some((term) => terms.has(term));

/**
 * Whether the slide states `number` near one of the probe's terms: in a sentence unit (bullet line or
 * sentence) that also holds one of them, or anywhere on a slide whose title holds one. A bare "0"
 * elsewhere on a slide is another fact, not this probe's answer.
 */
function statesNumberNearTerm(slide: SlideIndex, number: string, probeTerms: readonly string[]): boolean {
  if (!slide.numbers.has(number) || probeTerms.length === 0) return false;
  const titled = sharesAny(slide.titleTerms, probeTerms);
  return slide.units.some(
    (unit) => unit.numbers.has(number) && (titled || sharesAny(unit.terms, probeTerms)),
  );
}

/** The offline answerability judge `lexical` (algorithm and blind spots: README, Offline judge). */
export function judgeAnswerabilityLexically(deck: Deck, probes: readonly Probe[]): ProbeJudgment[] {
  const slides = indexSlides(deck);
  const deckTokens = new Set(slides.flatMap((slide) => [...slide.tokens]));
  return probes.map((probe) => {
    const keyTokens = [...new Set(contentTokens(probe.answer))];
    const numbers = [...new Set(extractNumbers(probe.answer))];
    if (keyTokens.length === 0 && numbers.length === 0) return uncoveredJudgment(probe.probe_id);
    const probeTerms = [...new Set([...topicTerms(probe.question), ...topicTerms(probe.answer)])];
    const numbersFound = numbers.every((n) =>
      slides.some((slide) => statesNumberNearTerm(slide, n, probeTerms)),
    );
    const recall =
      keyTokens.length === 0
        ? 1
        : keyTokens.filter((token) => deckTokens.has(token)).length / keyTokens.length;
    const threshold =
      numbers.length > 0 ? LEXICAL_NUMERIC_ANSWER_RECALL_THRESHOLD : LEXICAL_ANSWER_RECALL_THRESHOLD;
    const covered = numbersFound && recall >= threshold;
    const overlap = (tokens: Set<string>, nums: Set<string>) =>
      keyTokens.filter((t) => tokens.has(t)).length + numbers.filter((n) => nums.has(n)).length;
    let best: SlideIndex | undefined;
    let bestOverlap = 0;
    for (const slide of slides) {
      const value = overlap(slide.tokens, slide.numbers);
      if (value > bestOverlap) {
        best = slide;
        bestOverlap = value;
      }
    }
    let answer = '';
    if (covered && best) {
      let bestSentenceOverlap = -1;
      for (const sentence of best.sentences) {
        const value = overlap(new Set(contentTokens(sentence)), new Set(extractNumbers(sentence)));
        if (value > bestSentenceOverlap) {
          answer = sentence;
          bestSentenceOverlap = value;
        }
      }
    }
    return {
      probe_id: probe.probe_id,
      covered,
      answer,
      cited_evidence: covered && best ? `Slide ${best.index}` : '',
      confidence: numbersFound ? Number(recall.toFixed(6)) : 0,
    };
  });
}
