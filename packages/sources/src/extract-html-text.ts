import { decodeUtf8Text, InputError } from '@xsb/core';

/** Elements whose whole content is dropped: code, styling and page chrome rather than the document. */
const DROPPED_HTML_ELEMENTS = [
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
  'ul',
]);
/** Tags that end a line but not a paragraph. */
const LINE_TAGS = new Set(['br', 'tr']);
/** Table cells: joined with ` | ` so a row stays one line. */
const CELL_TAGS = new Set(['td', 'th']);
const CELL_MARK = '\u0001';

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
  return text.replace(
    /&(#[0-9]{1,8}|#[xX][0-9a-fA-F]{1,8}|[a-zA-Z][a-zA-Z0-9]{1,31});/g,
    (whole, body: string) => {
      if (body.startsWith('#')) {
        const code =
          body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number(body.slice(1));
        if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return '\uFFFD';
        return String.fromCodePoint(code);
      }
      return NAMED_ENTITIES[body] ?? NAMED_ENTITIES[body.toLowerCase()] ?? whole;
    },
  );
}

/**
 * HTML → text: comments, CDATA, doctype/processing instructions and the {@link DROPPED_HTML_ELEMENTS}
 * (with their content) are removed; source whitespace, newlines included, collapses to one space;
 * block-level tags become paragraph breaks, `<br>` and `<tr>` line breaks; table cells of one row are
 * joined with ` | `; every other tag is stripped; entities are decoded last, so encoded markup stays
 * text; lines are trimmed and blank-line runs collapse to one blank line, so paragraphs stay
 * separated by `\n\n`. `<pre>` content is not kept verbatim: sources are prose.
 *
 * One left-to-right scan with `indexOf` (linear time): a regex over hostile input such as thousands
 * of unterminated `<a ` would backtrack quadratically. An unterminated tag, comment or dropped element
 * runs to the end of the document, as in a browser.
 */
export function htmlToText(html: string): string {
  const lower = html.toLowerCase();
  const out: string[] = [];
  const pushText = (from: number, to: number) => {
    if (to > from) out.push(html.slice(from, to).replaceAll(CELL_MARK, ' ').replace(/\s+/g, ' '));
  };
  let i = 0;
  while (i < html.length) {
    const open = html.indexOf('<', i);
    if (open === -1) {
      pushText(i, html.length);
      break;
    }
    pushText(i, open);
    if (html.startsWith('<!--', open)) {
      i = skipPast(lower, '-->', open + 4);
      out.push(' ');
      continue;
    }
    if (html.startsWith('<![CDATA[', open)) {
      i = skipPast(lower, ']]>', open + 9);
      out.push(' ');
      continue;
    }
    if (html[open + 1] === '!' || html[open + 1] === '?') {
      i = skipPast(lower, '>', open + 2);
      out.push(' ');
      continue;
    }
    TAG_NAME.lastIndex = open;
    const name = TAG_NAME.exec(html);
    if (!name) {
      out.push('<');
      i = open + 1;
      continue;
    }
    const closing = name[1] === '/';
    const tag = name[2]!.toLowerCase();
    const tagEnd = findTagEnd(html, open + name[0].length);
    const selfClosing = html[tagEnd - 2] === '/';
    i = tagEnd;
    if (!closing && !selfClosing && DROPPED.has(tag)) {
      i = skipDroppedContent(lower, tag, i);
      out.push(' ');
    } else if (BLOCK_TAGS.has(tag)) out.push('\n\n');
    else if (LINE_TAGS.has(tag)) out.push(closing ? '' : '\n');
    else if (CELL_TAGS.has(tag)) out.push(CELL_MARK);
  }
  const text = decodeHtmlEntities(out.join('')).replace(/[ \t\f\v\r\u00a0]+/g, ' ');
  return text
    .split('\n')
    .map((line) =>
      line
        .split(CELL_MARK)
        .map((cell) => cell.trim())
        .filter(Boolean)
        .join(' | '),
    )
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const DROPPED: ReadonlySet<string> = new Set(DROPPED_HTML_ELEMENTS);
const TAG_NAME = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)/y;

/** Index just after `marker` at or after `from`, or the end of the text when it never comes. */
function skipPast(text: string, marker: string, from: number): number {
  const at = text.indexOf(marker, from);
  return at === -1 ? text.length : at + marker.length;
}

/** Index just after the `>` that ends a tag, skipping quoted attribute values. */
function findTagEnd(html: string, from: number): number {
  let quote: string | undefined;
  for (let j = from; j < html.length; j++) {
    const c = html[j];
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '>') return j + 1;
  }
  return html.length;
}

/** Index just after `</tag>` (the first one whose name ends there), or the end of the document. */
function skipDroppedContent(lower: string, tag: string, from: number): number {
  const marker = `</${tag}`;
  let at = lower.indexOf(marker, from);
  while (at !== -1) {
    const next = lower[at + marker.length];
    if (next === undefined || next === '>' || next === '/' || /\s/.test(next)) {
      return skipPast(lower, '>', at + marker.length);
    }
    at = lower.indexOf(marker, at + marker.length);
  }
  return lower.length;
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
