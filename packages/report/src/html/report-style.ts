/** The report's stylesheet, inlined; the system font stack, so no font is downloaded or embedded. */
export const REPORT_STYLE = `
:root { --ink: #1d2430; --muted: #5b6575; --line: #d9dee7; --bg: #f6f7f9; --card: #fff; --accent: #2457c5;
  --good: #1a7f37; --bad: #c0362c; --warn: #9a6700; --warn-bg: #fff8e1; --hl: #ffb000; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", "Liberation Sans", sans-serif;
  color: var(--ink); background: var(--bg); }
header.top { background: var(--ink); color: #fff; padding: 14px 28px 10px; }
header.top h1 { margin: 0 0 4px; font-size: 20px; font-weight: 600; }
header.top .sub { color: #c9d1de; font-size: 13px; }
nav.toc { position: sticky; top: 0; z-index: 5; background: #fff; border-bottom: 1px solid var(--line); padding: 6px 28px; font-size: 13px; }
nav.toc a { margin-right: 14px; color: var(--accent); text-decoration: none; white-space: nowrap; }
main { padding: 8px 28px 40px; max-width: 1600px; }
section { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 12px 18px; margin: 14px 0; }
h2 { font-size: 17px; margin: 4px 0 10px; }
h3 { font-size: 15px; margin: 14px 0 6px; }
h4 { font-size: 13px; margin: 10px 0 4px; color: var(--muted); text-transform: uppercase; letter-spacing: .03em; }
p.note, .muted { color: var(--muted); }
.warning { background: var(--warn-bg); border: 1px solid #f0d48a; color: #5c4300; padding: 8px 12px; border-radius: 5px; margin: 8px 0; }
.problem { background: #fdecea; border: 1px solid #f3b8b2; color: #7a1c14; padding: 6px 10px; border-radius: 5px; margin: 4px 0; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 3px 16px; margin: 6px 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 12.5px; background: #eef1f5; padding: 0 3px; border-radius: 3px; }
.plots { display: flex; flex-wrap: wrap; gap: 18px; align-items: flex-start; }
figure.plot { margin: 0; }
figure.plot figcaption { font-size: 12.5px; color: var(--muted); max-width: 560px; }
figure.plot svg { max-width: 100%; height: auto; }
table { border-collapse: collapse; width: 100%; font-size: 13px; margin: 4px 0 8px; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f0f2f6; font-weight: 600; position: sticky; top: 33px; }
table.sortable th { cursor: pointer; user-select: none; }
table.sortable th::after { content: " \\2195"; color: #a0a8b5; font-size: 11px; }
table.sortable th[aria-sort="ascending"]::after { content: " \\2191"; color: var(--accent); }
table.sortable th[aria-sort="descending"]::after { content: " \\2193"; color: var(--accent); }
td.num { font-variant-numeric: tabular-nums; white-space: nowrap; }
tr[data-slides] { cursor: pointer; }
tr[data-slides]:hover { background: #f3f6fc; }
tr.selected, tr.selected:hover { background: #fff1cc; }
.filters { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 6px 0; font-size: 13px; }
.filters select, .filters input { font: inherit; padding: 2px 4px; }
.filter-count { color: var(--muted); }
.badge { display: inline-block; padding: 0 6px; border-radius: 9px; font-size: 12px; font-weight: 600; white-space: nowrap; }
.b-good { background: #dafbe1; color: var(--good); }
.b-bad { background: #ffe3e0; color: var(--bad); }
.b-mid { background: #eef1f5; color: var(--muted); }
.b-warn { background: var(--warn-bg); color: var(--warn); border: 1px solid #f0d48a; }
details.deck { border: 1px solid var(--line); border-radius: 6px; margin: 8px 0; background: #fff; }
details.deck > summary { cursor: pointer; padding: 8px 12px; font-weight: 600; }
details.deck[open] > summary { border-bottom: 1px solid var(--line); }
.deck-body { padding: 8px 12px; }
.slides { display: flex; gap: 10px; overflow-x: auto; padding: 6px 2px 10px; position: sticky; top: 33px; z-index: 3; background: #fff; border-bottom: 1px solid var(--line); }
details.deck th { position: static; }
.slide { flex: 0 0 auto; width: var(--thumb-width, 240px); margin: 0; border: 2px solid transparent; border-radius: 5px; padding: 3px; background: #fafbfc; }
.slide img { display: block; width: 100%; height: auto; border: 1px solid var(--line); background: #fff; }
.slide .text-card { height: calc(var(--thumb-width, 240px) * 0.5625); overflow: hidden; border: 1px dashed var(--line); background: #fff; padding: 6px; font-size: 11px; color: var(--muted); }
.slide .text-card b { color: var(--ink); display: block; font-size: 12px; margin-bottom: 3px; }
.slide figcaption { font-size: 12px; color: var(--muted); padding-top: 2px; }
.slide.highlight { border-color: var(--hl); background: #fff6dd; box-shadow: 0 0 0 3px rgba(255,176,0,.35); }
.slide.flagged { border-color: #c0392b; }
.slide.flagged figcaption { color: #a02a1e; }
.slide-note { font-size: 12px; color: var(--muted); min-height: 1.2em; }
.snippet { color: var(--muted); font-size: 12px; max-width: 560px; }
.small { font-size: 12px; }
.nowrap { white-space: nowrap; }
.explanation { max-width: 620px; white-space: pre-wrap; }
`;
