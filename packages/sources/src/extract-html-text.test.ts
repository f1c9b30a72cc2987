import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { extractHtmlText, htmlToText } from './extract-html-text';

const encode = (text: string) => new TextEncoder().encode(text);
const realPages = join(dirname(fileURLToPath(import.meta.url)), '../../../fixtures/sources-html');
const readPage = (name: string) => readFileSync(join(realPages, name), 'utf8');

describe('htmlToText on real documentation pages (fixtures/sources-html)', () => {
  it('keeps the chapter of a current mdBook page and none of its chrome', () => {
    const text = htmlToText(readPage('mdbook-strict-path-getting-started.html'));
    expect(text).toMatch(
      /^Getting Started with strict-path\n\nWhat is strict-path\?\n\nHave you ever worried/,
    );
    expect(text).toContain(
      'It comes in two modes: StrictPath (via PathBoundary) which detects and rejects escape attempts',
    );
    expect(text).toContain('Rule of thumb: Use StrictPath for system resources (explicit validation)');
    expect(text).toMatch(/join it to a path boundary first!$/);
    // Code blocks keep their lines.
    expect(text).toContain(
      'let report = user_files_dir.strict_join("documents/report.txt")?;\nreport.create_parent_dir_all()?;',
    );
    for (const chrome of [
      'Keyboard shortcuts', // the help popup (mdbook-help-container)
      'to navigate between chapters',
      'Press',
      'Auto\n', // the theme picker (ul#theme-list role=menu of buttons)
      'Coal',
      'Navy',
      'Ayu',
      'Search this book', // the search box (a form; its placeholder is an attribute anyway)
      'The Complete StrictPath Guide', // the menu bar's book title
      'Next chapter', // prev/next navigation
      'localStorage', // scripts
    ]) {
      expect(text, chrome).not.toContain(chrome);
    }
  });

  it('drops the inline table of contents, theme picker, search and navigation of an older mdBook page', () => {
    const text = htmlToText(readPage('mdbook-azure-workload-identity-concepts.html'));
    expect(text.split('\n\n').slice(0, 3)).toEqual([
      'Concepts',
      'Service Account',
      '“A service account provides an identity for processes that run in a Pod.” - source',
    ]);
    expect(text).toContain(
      'Proxy Init is an init container that establishes an iptables rule to redirect all IMDS requests from 169.254.169.254 to the proxy server',
    );
    expect(text).toMatch(/created by Proxy Init\.$/);
    for (const chrome of [
      'Quick Start', // sidebar table of contents (nav#sidebar)
      'Troubleshooting',
      'Code of Conduct',
      '1.6.2.1.',
      'Light (default)', // theme picker
      'Rust',
      'Azure AD Workload Identity\n', // menu-bar title; the phrase itself is in the body text
      'Previous chapter',
      'Next chapter',
    ]) {
      expect(text, chrome).not.toContain(chrome);
    }
    expect(text.startsWith('Azure AD Workload Identity')).toBe(false);
  });
});

describe('htmlToText', () => {
  it('drops script, style, noscript, nav, header, footer and aside with their content', () => {
    const html = `<html><head><title>T</title><style>p{color:red}</style></head><body>
      <header>Site banner</header><nav><a>Home</a><a>About</a></nav>
      <script type="text/javascript">var secret = "tracking";</script>
      <main><p>Kept paragraph.</p></main>
      <aside>Related links</aside><noscript>Enable JS</noscript><footer>Copyright line</footer></body></html>`;
    const text = htmlToText(html);
    expect(text).toBe('Kept paragraph.');
  });

  it('drops forms, buttons, selects, hidden content and chrome roles wherever they are', () => {
    const html = `<body><div>
      <p>Body one.</p>
      <form><label>Search the docs <input name="q"></label><button>Go</button></form>
      <p>Pick <select><option>Light</option><option>Dark</option></select> a theme. <button>Copy</button></p>
      <div hidden><p>Hidden panel.</p><div><p>Nested hidden.</p></div></div>
      <div aria-hidden="TRUE">Decorative.</div><div aria-hidden="false">Shown to readers.</div>
      <div role="navigation">Breadcrumbs</div><div role="banner">Logo</div>
      <div role="contentinfo">Legal</div><div role="search">Quick search</div>
      <ul role="menu"><li>Theme A</li></ul><div role="dialog">Cookie banner</div>
      <div style="display: none">Collapsed by CSS.</div><div style="color: red">Red text.</div>
      <details><summary>More</summary><p>Revealable until found.</p></details>
      <div hidden="until-found">Found by search.</div>
      <dialog>Closed dialog.</dialog><dialog open>Open dialog.</dialog>
      <p>Body two.</p></div></body>`;
    expect(htmlToText(html)).toBe(
      [
        'Body one.',
        'Pick a theme.',
        'Shown to readers.',
        'Red text.',
        'More',
        'Revealable until found.',
        'Found by search.',
        'Open dialog.',
        'Body two.',
      ].join('\n\n'),
    );
  });

  it('reads only main when the page has one (role=main too), else the articles, else the body', () => {
    const chrome =
      '<div class="menu-bar"><h1>Book title</h1><div id="help"><p>Press ? for help</p></div></div>';
    expect(htmlToText(`<body>${chrome}<main><p>Chapter text.</p></main><div>After main.</div></body>`)).toBe(
      'Chapter text.',
    );
    expect(
      htmlToText(
        `<body>${chrome}<div class="sphinxsidebar" role="navigation"><h3>Table of Contents</h3></div>` +
          `<div class="body" role="main"><h1>Title<a class="headerlink" href="#t" title="Link to this heading">¶</a></h1>` +
          '<p>Sphinx body.</p></div><div class="footer">© 2024</div></body>',
      ),
    ).toBe('Title\n\nSphinx body.');
    expect(
      htmlToText(
        `<body>${chrome}<article><p>First post.</p></article><article><p>Second post.</p></article></body>`,
      ),
    ).toBe('First post.\n\nSecond post.');
    expect(htmlToText(`<body>${chrome}<p>Plain page.</p></body>`)).toBe(
      'Book title\n\nPress ? for help\n\nPlain page.',
    );
    // A main that is hidden does not count; an empty main falls back to the body.
    expect(htmlToText('<body><main hidden><p>Old.</p></main><article><p>New.</p></article></body>')).toBe(
      'New.',
    );
    expect(htmlToText('<body><main><script>render()</script></main><p>Server text.</p></body>')).toBe(
      'Server text.',
    );
  });

  it('keeps the headings of a header inside an article or main and drops its other lines and its footer', () => {
    const html = `<body><header><p>Site name</p></header><article>
      <header><h1>Coral <em>bleaching</em></h1><p class="byline">By A. Writer · 5 min read</p><button>Share</button></header>
      <p>Article text.</p>
      <footer><p>Tags: ocean</p></footer></article></body>`;
    expect(htmlToText(html)).toBe('Coral bleaching\n\nArticle text.');
  });

  it('drops permalink anchors but keeps heading links and ordinary links', () => {
    const html =
      '<main><h2><a class="header" href="#x">Heading link</a><a class="headerlink" href="#x">¶</a></h2>' +
      '<h3>Other<a href="#o" aria-label="Permalink"> # </a></h3><p>See <a href="/a">the guide</a> and <a href="#n">#5</a>.</p></main>';
    expect(htmlToText(html)).toBe('Heading link\n\nOther\n\nSee the guide and #5.');
  });

  it('keeps paragraph breaks between blocks and collapses whitespace inside them', () => {
    const html =
      '<h1>Title</h1>\n<p>First   line\n  continues\there.</p><p>Second<br>line two</p><ul><li>one</li><li>two</li></ul>';
    expect(htmlToText(html)).toBe('Title\n\nFirst line continues here.\n\nSecond\nline two\n\none\n\ntwo');
  });

  it('keeps the lines of preformatted text', () => {
    expect(htmlToText('<p>Run:</p><pre>\nmake   build\n  make test\n</pre><p>Done.</p>')).toBe(
      'Run:\n\nmake build\nmake test\n\nDone.',
    );
  });

  it('keeps a table row on one line with cells joined by a bar', () => {
    const html = '<table><tr><th>Level</th><th>DHW</th></tr><tr><td>1</td><td> 4 </td></tr></table>';
    expect(htmlToText(html)).toBe('Level | DHW\n1 | 4');
  });

  it('strips inline tags without inserting spaces inside words and removes comments', () => {
    expect(htmlToText('<p>Sym<b>bio</b>sis<!-- hidden note --> works</p>')).toBe('Symbiosis works');
  });

  it('decodes entities as a browser does, so encoded markup stays text', () => {
    expect(
      htmlToText('<p>&lt;p&gt; is a tag &amp; 5&nbsp;&deg;C &#8364; &#x2014; &unknown; &rsquo;</p>'),
    ).toBe('<p> is a tag & 5 °C € — &unknown; ’');
    expect(htmlToText('<p>&quot;&apos;&#65;&#x1F600;&#0;&#xD800;&frac12;</p>')).toBe('"\'A😀\uFFFD\uFFFD½');
  });

  it('reads quoted attributes containing > as part of the tag', () => {
    expect(htmlToText('<p><a title="a > b" data-x=\'<c>\'>link</a> text</p>')).toBe('link text');
  });

  it('ends a dropped element only at its own closing tag, as a browser does', () => {
    expect(htmlToText('<p>A</p><script>if (a </scripts) {}</script ><p>B</p>')).toBe('A\n\nB');
    // `<style/>` is not self-closing in HTML: the style sheet runs to its end tag or the end of the page.
    expect(htmlToText('<p>A</p><style/><p>hidden</p>')).toBe('A');
    // Nested elements of one dropped tag end at the matching end tag, not the first one.
    expect(htmlToText('<div hidden><div>x</div>still hidden</div><p>shown</p>')).toBe('shown');
  });

  it('drops unterminated tags and keeps a bare < that starts no tag', () => {
    expect(htmlToText('<p>1 < 2 and 3 <= 4</p>')).toBe('1 < 2 and 3 <= 4');
    expect(htmlToText(`<p>kept</p>${'<a '.repeat(20000)}`)).toBe('kept');
  });

  it('reads hostile nesting without overflowing the call stack', () => {
    // 20,000 levels of nesting: a recursive walk would overflow the call stack (about 10,000 frames).
    const depth = 20_000;
    const nested = `${'<div>'.repeat(depth)}deep${'</div>'.repeat(depth)}`;
    expect(htmlToText(`<p>top</p>${nested}`)).toBe('top\n\ndeep');
    const hidden = `${'<div hidden>'.repeat(depth)}gone${'</div>'.repeat(depth)}`;
    expect(htmlToText(`<p>top</p>${hidden}<p>end</p>`)).toBe('top\n\nend');
    // Stray end tags that match nothing open.
    expect(htmlToText(`<div><p>x</p>${'</span>'.repeat(depth)}</div>`)).toBe('x');
  });

  it('treats an unclosed script as running to the end of the document', () => {
    expect(htmlToText('<p>Visible</p><script>never closed <p>hidden</p>')).toBe('Visible');
  });
});

describe('extractHtmlText', () => {
  it('fails naming the file when no text is left', () => {
    expect(() =>
      extractHtmlText(encode('<html><script>x()</script><nav>Menu</nav></html>'), 'page.html'),
    ).toThrow(/^page\.html: the HTML page holds no text/);
  });

  it('refuses invalid UTF-8 naming the file', () => {
    expect(() => extractHtmlText(new Uint8Array([0x3c, 0x70, 0x3e, 0xff, 0xfe]), 'bad.html')).toThrow(
      /^bad\.html: file is not valid UTF-8/,
    );
  });
});
