import type { DefaultTreeAdapterTypes } from 'parse5';

type Element = DefaultTreeAdapterTypes.Element;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;

/**
 * Elements dropped with their content wherever they are: code and styling, embedded documents,
 * and the page chrome a reader does not read as the document (navigation, side notes, forms and
 * their controls, dialogs that are not open).
 */
export const DROPPED_HTML_ELEMENTS: ReadonlySet<string> = new Set([
  'head',
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'iframe',
  'object',
  'embed',
  'canvas',
  'audio',
  'video',
  'nav',
  'aside',
  'form',
  'button',
  'select',
  'textarea',
  'datalist',
  'menu',
]);

/**
 * ARIA roles of chrome: the page's banner and footer, navigation, search, side content, and the
 * widgets of a page's controls (menus, toolbars, dialogs, tooltips), such as mdBook's theme picker
 * (`<ul role="menu">`).
 */
export const DROPPED_ARIA_ROLES: ReadonlySet<string> = new Set([
  'navigation',
  'banner',
  'contentinfo',
  'search',
  'complementary',
  'menu',
  'menubar',
  'toolbar',
  'dialog',
  'alertdialog',
  'tooltip',
]);

/** Elements whose `header`/`footer` belong to a section rather than to the page (HTML's sectioning content and `main`). */
const SECTIONING_ELEMENTS: ReadonlySet<string> = new Set(['article', 'section', 'main']);
const HEADING_ELEMENTS: ReadonlySet<string> = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hgroup']);
const INLINE_HIDDEN_STYLE =
  /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important\s*)?(?:;|$)/i;

/**
 * What the text extractor does with one element:
 * - `drop`: skip it and everything inside;
 * - `headings`: keep only the text of its headings (`h1`–`h6`, `hgroup`);
 * - `keep`: read it.
 *
 * Dropped: {@link DROPPED_HTML_ELEMENTS}; a `dialog` without `open`; `[hidden]` (but not
 * `hidden="until-found"`, which a reader can reveal by searching); `[aria-hidden=true]`; an inline
 * `display: none` or `visibility: hidden`; a {@link DROPPED_ARIA_ROLES} role (`role=main` and others
 * are kept). A `header` or `footer` outside `article`/`section`/`main` is the page's banner or footer
 * and is dropped. Inside one, a `footer` (bylines, tags, share links, "edit this page") is dropped and a
 * `header` keeps only its headings: it usually holds the section's title, which a reader reads, beside
 * dates and share buttons.
 */
export function chromeRule(element: Element, inSection: boolean): 'drop' | 'headings' | 'keep' {
  const tag = element.tagName;
  if (DROPPED_HTML_ELEMENTS.has(tag)) return 'drop';
  if (tag === 'dialog' && !hasAttribute(element, 'open')) return 'drop';
  const hidden = attribute(element, 'hidden');
  if (hidden !== undefined && hidden.trim().toLowerCase() !== 'until-found') return 'drop';
  if (attribute(element, 'aria-hidden')?.trim().toLowerCase() === 'true') return 'drop';
  const style = attribute(element, 'style');
  if (style !== undefined && INLINE_HIDDEN_STYLE.test(style)) return 'drop';
  const role = attribute(element, 'role')?.trim().toLowerCase().split(/\s+/)[0];
  if (role !== undefined && DROPPED_ARIA_ROLES.has(role)) return 'drop';
  if (tag === 'footer') return 'drop';
  if (tag === 'header') return inSection ? 'headings' : 'drop';
  return 'keep';
}

/** True for the elements whose `header`/`footer` children belong to them rather than to the page. */
export function isSectioningElement(element: Element): boolean {
  return SECTIONING_ELEMENTS.has(element.tagName) || isMainRole(element);
}

export function isHeadingElement(element: Element): boolean {
  return HEADING_ELEMENTS.has(element.tagName);
}

/**
 * The parts of the page a reader reads as the document (`roots`): every outermost `main` (or
 * `role=main`, as Sphinx themes write it) outside dropped chrome; without one, every outermost
 * `article`; without either, the `body`, which is also returned for callers that fall back to it. One
 * pass over the tree with an explicit stack (deeply nested hostile input cannot overflow the call
 * stack).
 */
export function readingRegion(document: DefaultTreeAdapterTypes.Document): {
  roots: ParentNode[];
  body: ParentNode;
} {
  const mains: Element[] = [];
  const articles: Element[] = [];
  let body: Element | undefined;
  const stack: Array<{ node: ParentNode; inSection: boolean; inArticle: boolean }> = [
    { node: document, inSection: false, inArticle: false },
  ];
  while (stack.length > 0) {
    let { node, inSection, inArticle } = stack.pop()!;
    if ('tagName' in node) {
      if (node.tagName === 'body') body ??= node;
      if (chromeRule(node, inSection) === 'drop') continue;
      if (node.tagName === 'main' || isMainRole(node)) {
        mains.push(node);
        continue;
      }
      const article = node.tagName === 'article';
      if (article && !inArticle) articles.push(node);
      inSection ||= isSectioningElement(node);
      inArticle ||= article;
    }
    // Children pushed last-first, so they are visited in document order.
    for (let index = node.childNodes.length - 1; index >= 0; index -= 1) {
      const child = node.childNodes[index]!;
      if ('childNodes' in child) stack.push({ node: child, inSection, inArticle });
    }
  }
  const page = body ?? document;
  return { roots: mains.length > 0 ? mains : articles.length > 0 ? articles : [page], body: page };
}

function isMainRole(element: Element): boolean {
  return attribute(element, 'role')?.trim().toLowerCase().split(/\s+/)[0] === 'main';
}

function attribute(element: Element, name: string): string | undefined {
  for (const attr of element.attrs) if (attr.name === name) return attr.value;
  return undefined;
}

function hasAttribute(element: Element, name: string): boolean {
  return attribute(element, name) !== undefined;
}
