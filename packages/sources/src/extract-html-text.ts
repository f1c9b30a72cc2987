import { InputError } from '@xsb/core';
import { decodeUtf8Text } from './decode-utf8-text';

/** Elements whose whole content is dropped: code, styling and page chrome rather than the document. */
export const DROPPED_HTML_ELEMENTS = [
  'script',
  'style',
  'noscript',
  'nav',
  'header',
  'footer',
  'aside',
  'template',
  'svg',
  'iframe',
  'head',
] as const;

/** Tags that end a block of text: they become a paragraph break. */
const BLOCK_TAGS = new Set([
  'address',
  'article',
  'blockquote',
  'body',
  'caption',
  'dd',
  'details',
  'div',
  'dl',
  'dt',
  'figcaption',
  'figure',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'html',
  'li',
  'main',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'thead',
  'tfoot',
  'tr',
  'ul',
]);
/** Tags that end a line but not a paragraph. */
const LINE_TAGS = new Set(['br', 'td', 'th']);

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  laquo: '«',
  raquo: '»',
  bull: '•',
  middot: '·',
  copy: '©',
  reg: '®',
  trade: '™',
  deg: '°',
  plusmn: '±',
  times: '×',
  divide: '÷',
  minus: '−',
  le: '≤',
  ge: '≥',
  ne: '≠',
  asymp: '≈',
  micro: 'µ',
  para: '¶',
  sect: '§',
  euro: '€',
  pound: '£',
  yen: '¥',
  cent: '¢',
  frac12: '½',
  frac14: '¼',
  frac34: '¾',
  sup2: '²',
  sup3: '³',
  alpha: 'α',
  beta: 'β',
  gamma: 'γ',
  delta: 'δ',
  lambda: 'λ',
  mu: 'μ',
  pi: 'π',
  sigma: 'σ',
  larr: '←',
  rarr: '→',
  shy: '',
  zwj: '\u200d',
  zwnj: '\u200c',
};

/**
 * Decodes `&name;`, `&#NNN;` and `&#xHH;`. Unknown names are left as written; numeric references
 * outside Unicode, surrogates and NUL become U+FFFD as in the HTML standard.
 */
export function decodeHtmlEntities(text: string): string {
  return text.replace(/&(#[0-9]{1,8}|#[xX][0-9a-fA-F]{1,8}|[a-zA-Z][a-zA-Z0-9]{1,31});/g, (whole, body: string) => {
    if (body.startsWith('#')) {
      const code = body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number(body.slice(1));
      if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return '\uFFFD';
      return String.fromCodePoint(code);
    }
    return NAMED_ENTITIES[body] ?? NAMED_ENTITIES[body.toLowerCase()] ?? whole;
  });
}

/**
 * HTML → text: comments, CDATA and the {@link DROPPED_HTML_ELEMENTS} (with their content) are
 * removed; block-level tags become paragraph breaks, `<br>` and table cells line breaks; every other
 * tag is stripped; entities are decoded; runs of spaces/tabs collapse to one space, lines are
 * trimmed and blank-line runs collapse to one blank line, so paragraphs stay separated by `\n\n`.
 * `<pre>` content is not kept verbatim (its whitespace collapses too): sources are prose.
 */
export function htmlToText(html: string): string {
  let text = html.replace(/<!--[\s\S]*?(?:-->|$)/g, ' ').replace(/<!\[CDATA\[[\s\S]*?(?:\]\]>|$)/g, ' ');
  for (const tag of DROPPED_HTML_ELEMENTS) {
    // An unclosed dropped element swallows the rest of the document, as a browser would for <script>.
    text = text.replace(new RegExp(`<${tag}(?:\\s[^>]*)?>[\\s\\S]*?(?:</${tag}\\s*>|$)`, 'gi'), ' ');
  }
  text = text.replace(/<!doctype[^>]*>/gi, ' ');
  text = text.replace(/<\/?([a-zA-Z][a-zA-Z0-9-]*)(?:\s[^>]*)?\/?>/g, (_tag, name: string) => {
    const lower = name.toLowerCase();
    if (BLOCK_TAGS.has(lower)) return '\n\n';
    if (LINE_TAGS.has(lower)) return '\n';
    return '';
  });
  // Whitespace first: an encoded `&lt;p&gt;` must survive as text, and `&nbsp;` runs collapse after.
  text = text.replace(/[ \t\f\v\r]+/g, ' ');
  text = decodeHtmlEntities(text).replace(/[ \t\u00a0]+/g, ' ');
  return text
    .split('\n')
    .map((line) => line.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Reads an HTML file (strict UTF-8) and converts it with {@link htmlToText}; no text is an error. */
export function extractHtmlText(bytes: Uint8Array, file: string): string {
  const text = htmlToText(decodeUtf8Text(bytes, file));
  if (text === '') {
    throw new InputError('the HTML page holds no text once scripts, styles and navigation are removed', {
      file,
      code: 'no_text',
    });
  }
  return text;
}
