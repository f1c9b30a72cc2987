import { escapeHtml } from './escape-html';

export function renderFacts(facts: ReadonlyArray<readonly [string, string]>): string {
  return `<dl class="facts">${facts
    .map(([label, value]) => `<dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd>`)
    .join('')}</dl>`;
}

export function renderWarning(text: string): string {
  return `<div class="warning" role="note">${escapeHtml(text)}</div>`;
}

/** Problems met while reading the artifacts: shown, never hidden, and the report goes on. */
export function renderProblems(id: string, problems: readonly string[]): string {
  if (problems.length === 0) return '';
  const items = problems.map((problem) => `<div class="problem">${escapeHtml(problem)}</div>`).join('');
  return `<section id="${escapeHtml(id)}"><h2>Problems (${problems.length})</h2><p class="note">These files could not be read; their rows are shown with what is known.</p>${items}</section>`;
}

export function section(id: string, title: string, body: string): string {
  return `<section id="${escapeHtml(id)}"><h2>${escapeHtml(title)}</h2>\n${body}\n</section>`;
}
