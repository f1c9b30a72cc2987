/**
 * The sentence cues of the lexical probe generator, exported so that code predicting what it will ask
 * (the decks planner conditions outlines on them) uses the very same patterns.
 */

// Cloze targets besides numbers: capitalised multi-word names or acronyms.
export const LEXICAL_NAMED_TERM =
  /\b(?:[A-Z][a-zA-Z0-9-]+|[A-Z]{2,}[a-z]?)(?:\s+(?:of|for|and|the|de|in)\s+[A-Z][a-zA-Z0-9-]+|\s+[A-Z][a-zA-Z0-9-]+)+\b|\b[A-Z]{2,6}s?\b/g;
export const LEXICAL_DEFINITION =
  /^(?<term>[A-Za-z][\w-]*(?:\s+[\w-]+){0,4}?)\s+(?:is|are|refers to|is defined as|means|denotes)\s+(?<definition>(?:a|an|the)\s.+)$/;
// A glossary line: "Seasonal performance factor (SPF): the ratio of ...".
export const LEXICAL_GLOSSARY =
  /^(?<term>[A-Z][A-Za-z-]*(?:\s+[A-Za-z-]+){0,5}?)(?:\s*\([A-Z][A-Za-z]{1,9}\))?:\s+(?<definition>(?:a|an|the)\s.+)$/;

/**
 * Topic cues, first match wins: the sentence's theme for cloze probes (definitions keep `definition`).
 * Without a cue the theme names the target kind (`quantitative` or `entity`).
 */
export const LEXICAL_THEME_CUES: ReadonlyArray<[theme: string, cue: RegExp]> = [
  [
    'limitation',
    /\b(however|although|limitations?|limited|limits?|risks?|cannot|can't|fail\w*|drawbacks?|caveats?|uncertain\w*|unless|challenges?|problems?|damag\w*)\b/i,
  ],
  [
    'recommendation',
    /\b(should|recommend\w*|advis\w*|propos\w*)\b|^(first|second|third|fourth|fifth|finally),/i,
  ],
  [
    'cost',
    /[€$£]|\b(euros?|dollars?|costs?|costly|price\w*|tariffs?|savings?|budgets?|funds?|funded|funding|grants?|paid|pays?|spend\w*|spent)\b/i,
  ],
  ['background', /\b(introduced|history|historical\w*|originally|founded|invented)\b/i],
  [
    'result',
    /\b(results?|found|findings?|shows?|showed|shown|rose|fell|increas\w*|decreas\w*|reduc\w*|improv\w*|reached|scored?|achiev\w*|dropped|outperform\w*|higher|lower|compared|yield\w*)\b/i,
  ],
  [
    'method',
    /\b(methods?|algorithms?|approach\w*|procedures?|techniques?|protocols?|mechanisms?|measur\w*|estimat\w*|calculat\w*|tracks?|tracked|chosen|designed)\b/i,
  ],
];
// A sentence that relates facts (cause, purpose, comparison): its cloze probes are level 2.
export const LEXICAL_RELATION =
  /\b(because|since|so that|therefore|thus|hence|due to|leads? to|led to|causes?|caused|results? in|in order to|whereas|than|which means|means that)\b|, so\b/i;
