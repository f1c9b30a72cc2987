import { decodeUtf8Text, InputError } from '@xsb/core';
import { type DefaultTreeAdapterTypes, parse } from 'parse5';
import { chromeRule, isHeadingElement, isSectioningElement, readingRegion } from './html-page-chrome';

type Node = DefaultTreeAdapterTypes.Node;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;

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
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hgroup',
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
const CELL_TAGS = new Set(['td', 'th']);
const CELL_MARK = '\u0001';
/** A `<pre>` line break, kept through whitespace collapsing. */
const PRE_BREAK = '\u0002';
/** Sphinx and MkDocs permalink anchors beside headings: a link made only of these is chrome. */
const PERMALINK_TEXT = /^[\s\u00b6\u00a7#\u{1f517}\u2693\u200b\ufeff]*$/u;

interface ReadState {
  inSection: boolean;
  /** Inside a section `header`: only heading text is read. */
  headingsOnly: boolean;
  inHeading: boolean;
  inPre: boolean;
}

/**
 * HTML → the text a reader reads: parsed as a browser does (parse5), then the reading region without
 * its chrome. A dropped element leaves one space so the words around it do not run together. Walked
 * with an explicit stack: hostile nesting cannot overflow the call stack (`pnpm --filter @xsb/sources bench`).
 */
export function htmlToText(html: string): string {
  const { roots, body } = readingRegion(parse(html));
  const text = renderRoots(roots);
  // A `main` that holds no text (a script-filled shell) is no reason to lose the page.
  return text === '' && roots[0] !== body ? renderRoots([body]) : text;
}

function renderRoots(roots: readonly ParentNode[]): string {
  const out: string[] = [];
  for (const root of roots) {
    out.push('\n\n');
    renderInto(root, out);
  }
  return finishText(out.join(''));
}

function renderInto(root: ParentNode, out: string[]): void {
  const rootState: ReadState = {
    inSection: 'tagName' in root && isSectioningElement(root),
    headingsOnly: false,
    inHeading: false,
    inPre: false,
  };
  // Parallel stacks; a mark ≥ 0 is an element's second visit (after its children): where its text started.
  const nodes: Node[] = [];
  const states: ReadState[] = [];
  const marks: number[] = [];
  const pushChildren = (node: ParentNode, state: ReadState) => {
    for (let index = node.childNodes.length - 1; index >= 0; index -= 1) {
      nodes.push(node.childNodes[index]!);
      states.push(state);
      marks.push(-1);
    }
  };
  pushChildren(root, rootState);
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const state = states.pop()!;
    const mark = marks.pop()!;
    if (node.nodeName === '#text') {
      if (state.headingsOnly && !state.inHeading) continue;
      const value = (node as DefaultTreeAdapterTypes.TextNode).value.replaceAll(CELL_MARK, ' ');
      // Source line breaks are spaces, except inside <pre>; structure alone makes lines.
      out.push(state.inPre ? value.replace(/\r\n?|\n/g, PRE_BREAK) : value.replace(/\s+/g, ' '));
      continue;
    }
    if (!('tagName' in node)) continue; // comments, doctype
    const tag = node.tagName;
    if (mark >= 0) {
      closeElement(tag, mark, out);
      continue;
    }
    const rule = chromeRule(node, state.inSection);
    if (rule === 'drop') {
      out.push(' ');
      continue;
    }
    openElement(tag, out);
    nodes.push(node);
    states.push(state);
    marks.push(out.length);
    pushChildren(node, childState(node, state, rule));
  }
}

function childState(
  node: DefaultTreeAdapterTypes.Element,
  state: ReadState,
  rule: 'headings' | 'keep',
): ReadState {
  const inSection = state.inSection || isSectioningElement(node);
  const headingsOnly = state.headingsOnly || rule === 'headings';
  const inHeading = state.inHeading || isHeadingElement(node);
  const inPre = state.inPre || node.tagName === 'pre';
  const same =
    inSection === state.inSection &&
    headingsOnly === state.headingsOnly &&
    inHeading === state.inHeading &&
    inPre === state.inPre;
  return same ? state : { inSection, headingsOnly, inHeading, inPre };
}

function openElement(tag: string, out: string[]): void {
  if (BLOCK_TAGS.has(tag)) out.push('\n\n');
  else if (tag === 'br' || tag === 'tr') out.push('\n');
  else if (CELL_TAGS.has(tag)) out.push(CELL_MARK);
}

function closeElement(tag: string, mark: number, out: string[]): void {
  if (tag === 'a' && isPermalink(out, mark)) {
    out.length = mark;
    out.push(' ');
  } else if (BLOCK_TAGS.has(tag)) out.push('\n\n');
}

/** Looks at a few pieces at most, so the walk stays linear. */
function isPermalink(out: readonly string[], mark: number): boolean {
  if (out.length - mark > 4) return false;
  const text = out.slice(mark).join('');
  return text.length <= 8 && PERMALINK_TEXT.test(text);
}

function finishText(raw: string): string {
  return raw
    .replace(/[ \t\f\v\r\u00a0]+/g, ' ')
    .replaceAll(PRE_BREAK, '\n')
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

export function extractHtmlText(bytes: Uint8Array, file: string): string {
  const text = htmlToText(decodeUtf8Text(bytes, file));
  if (text === '') {
    throw new InputError(
      'the HTML page holds no text once scripts, styles, navigation and other page chrome are removed',
      {
        file,
        code: 'no_text',
      },
    );
  }
  return text;
}
