import type { RubricParser, RubricVerdict } from './schemas/rubric-evaluation';

/**
 * Characters Python's `str.isspace()` accepts: what `str.strip()` removes and what `\s` matches in a
 * `str` regex. JavaScript's `trim()` differs (it strips U+FEFF and keeps U+001C–U+001F and U+0085),
 * so the strict reading uses this set to store exactly the token PresentBench stores.
 */
const PY_SPACE =
  '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PY_LEADING_SPACE = new RegExp(`^[${PY_SPACE}]+`);
const PY_TRAILING_SPACE = new RegExp(`[${PY_SPACE}]+$`);
/** judge.py's `_LATEX_WRAPPER_RE`: `\\[a-zA-Z]+\s*`. */
const PY_LATEX_WRAPPER = new RegExp(`\\\\[a-zA-Z]+[${PY_SPACE}]*`, 'g');
/** judge.py's extraction regex, `\\boxed\{([^}]+)\}`: no nesting, an empty box does not match. */
const PY_BOXED = /\\boxed\{([^}]+)\}/g;

/** Python's `s.strip()`. */
export function pythonStrip(text: string): string {
  return text.replace(PY_LEADING_SPACE, '').replace(PY_TRAILING_SPACE, '');
}

function stripDots(text: string): string {
  return text.replace(/^\.+/, '').replace(/\.+$/, '');
}

/**
 * judge.py's `_normalize_boxed_token` (PresentBench main, e70ff01): strip, drop `\command` wrappers
 * and the spaces after them, drop every brace, then strip spaces, periods and spaces again. The case
 * is kept: `\textbf{Yes}` is stored as `Yes`.
 */
export function normalizeBoxedToken(raw: string): string {
  const dropped = pythonStrip(raw).replace(PY_LATEX_WRAPPER, '').replace(/[{}]/g, '');
  return pythonStrip(stripDots(pythonStrip(dropped)));
}

/** The text inside every `\boxed{...}` as judge.py's regex captures it, in order. */
export function boxedCaptures(text: string): string[] {
  return [...text.matchAll(PY_BOXED)].map((match) => match[1] as string);
}

export interface StrictReading {
  /** The answer judge.py stores: the first box when it reads yes/no, otherwise the last box. */
  answer: string;
  /** The capture that answer came from, before normalisation. */
  raw: string;
}

/**
 * PresentBench main's reading of one judge answer: every `\boxed\{([^}]+)\}`, each normalised; the
 * first one when it reads yes/no (case-insensitively), otherwise the last one whatever it says. Null
 * when the answer holds no box at all — the only case judge.py asks again.
 */
export function readStrictVerdict(text: string): StrictReading | null {
  const captures = boxedCaptures(text);
  if (captures.length === 0) return null;
  const normalized = captures.map(normalizeBoxedToken);
  const first = normalized[0] as string;
  if (first.toLowerCase() === 'yes' || first.toLowerCase() === 'no') {
    return { answer: first, raw: captures[0] as string };
  }
  return { answer: normalized.at(-1) as string, raw: captures.at(-1) as string };
}

/**
 * What a stored answer scores as, the way scoring.py reads it (`answer.strip().lower() == "yes"`):
 * yes, no, or anything else (not-yes, still in the denominator).
 */
export function verdictOfStoredAnswer(answer: string): Extract<RubricVerdict, 'yes' | 'no' | 'other'> {
  const value = pythonStrip(answer).toLowerCase();
  if (value === 'yes') return 'yes';
  if (value === 'no') return 'no';
  return 'other';
}

export type LenientAnswer = 'yes' | 'no' | 'not_applicable';

/** Any LaTeX command name (`\\text`, `\\textbf`, `\\mathrm`, `\\large` ...). */
const LATEX_COMMAND = /\\[a-zA-Z]+\s*/g;

/** The contents of every `\boxed{...}` with balanced braces, in order (the lenient reading). */
export function extractBoxed(text: string): string[] {
  const out: string[] = [];
  const opener = /\\boxed\s*\{/g;
  for (let match = opener.exec(text); match; match = opener.exec(text)) {
    let depth = 1;
    let index = match.index + match[0].length;
    const start = index;
    while (index < text.length && depth > 0) {
      if (text[index] === '{') depth += 1;
      else if (text[index] === '}') depth -= 1;
      index += 1;
    }
    if (depth === 0) out.push(text.slice(start, index - 1));
    opener.lastIndex = index;
  }
  return out;
}

/**
 * `\text{Yes}`, `**No**`, `"yes."`, `Yes!`, `\textbf{NOT\ APPLICABLE}`, `n/a`, 是/否 → yes / no /
 * not_applicable; anything else null.
 */
function normaliseLenientAnswer(raw: string): LenientAnswer | null {
  const value = raw
    .replace(/\\[ ,;:!]/g, ' ')
    .replace(LATEX_COMMAND, '')
    .replace(/[{}*_`"'“”‘’]/g, '')
    .replace(/[.!。！\s]+$/u, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
  if (value === 'yes' || value === '是') return 'yes';
  if (value === 'no' || value === '否') return 'no';
  if (value === 'not applicable' || value === 'n/a') return 'not_applicable';
  return null;
}

/**
 * xsb's older, opt-in reading (`--parse lenient`): every balanced `\boxed{...}`, the **last** one that
 * reads yes / no / not applicable wins (markdown, quotes, `!` and 是/否 tolerated); null when none does.
 */
export function readLenientVerdict(text: string): { answer: LenientAnswer | null; raw: string | null } {
  const boxed = extractBoxed(text);
  for (let index = boxed.length - 1; index >= 0; index -= 1) {
    const raw = boxed[index] as string;
    const answer = normaliseLenientAnswer(raw);
    if (answer) return { answer, raw };
  }
  return { answer: null, raw: boxed[0] ?? null };
}

/** The answer string the lenient reading stores (PresentBench's spelling of its third answer). */
export function storedLenientAnswer(answer: LenientAnswer): string {
  return answer === 'not_applicable' ? 'not applicable' : answer;
}

export const DEFAULT_PARSER: RubricParser = 'strict';

/** Calls per item until a verdict reads: PresentBench's `--retry` default (5) for strict, 3 for lenient. */
export function defaultMaxAttempts(parser: RubricParser): number {
  return parser === 'strict' ? 5 : 3;
}
