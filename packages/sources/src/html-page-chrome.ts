import type { DefaultTreeAdapterTypes } from 'parse5';

type Element = DefaultTreeAdapterTypes.Element;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;

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

/** Control widgets count as chrome too, e.g. mdBook's theme picker (`<ul role="menu">`). */
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
 * `hidden="until-found"` is kept: a reader can reveal it by searching. A section's `header` keeps only
 * its headings: its title is read, its dates and share buttons are not.
 */
export function chromeRule(element: Element, inSection: boolean): 'drop' | 'headings' | 'keep' {
  const tag = element.tagName;
  if (DROPPED_HTML_ELEMENTS.has(tag)) return 'drop';
  if (tag === 'dialog' && attribute(element, 'open') === undefined) return 'drop';
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

export function isSectioningElement(element: Element): boolean {
  return SECTIONING_ELEMENTS.has(element.tagName) || isMainRole(element);
}

export function isHeadingElement(element: Element): boolean {
  return HEADING_ELEMENTS.has(element.tagName);
}

/**
 * Every outermost `main` (or `role=main`, as Sphinx writes it) outside chrome, else every outermost
 * `article`, else the body (also returned for callers that fall back to it).
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
