import { createHash } from 'node:crypto';
import { escapeHtml } from './escape-html';
import { REPORT_SCRIPT } from './report-script';
import { REPORT_STYLE } from './report-style';

const cspHash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * Scripts and styles by sha256: a `<script>` smuggled in through deck text would not run even if
 * escaping failed. Inline `style` attributes (plots, thumbnail widths) cannot run code.
 */
export const REPORT_CSP = [
  "default-src 'none'",
  `script-src ${cspHash(REPORT_SCRIPT)}`,
  `style-src-elem ${cspHash(REPORT_STYLE)}`,
  "style-src-attr 'unsafe-inline'",
  'img-src data:',
  'font-src data:',
  "connect-src 'none'",
  "form-action 'none'",
  "base-uri 'none'",
].join('; ');

export type TocEntry = readonly [string, string] | false;

export const tocOf = (entries: TocEntry[]) => entries.filter((entry) => entry !== false);

export interface HtmlDocumentInput {
  title: string;
  subtitle: string;
  /** `[anchor id, label]`; `false` is left out. */
  toc: TocEntry[];
  /** Already escaped. */
  body: string;
}

export function renderHtmlDocument(input: HtmlDocumentInput): string {
  const toc = tocOf(input.toc)
    .map(([id, label]) => `<a href="#${escapeHtml(id)}">${escapeHtml(label)}</a>`)
    .join('');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(REPORT_CSP)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(input.title)}</title>
<style>${REPORT_STYLE}</style>
</head>
<body>
<header class="top"><h1>${escapeHtml(input.title)}</h1><div class="sub">${escapeHtml(input.subtitle)}</div></header>
<nav class="toc">${toc}</nav>
<main>
${input.body}
</main>
<script>${REPORT_SCRIPT}</script>
</body>
</html>
`;
}
