import { describe, expect, it } from 'vitest';
import { decodeHtmlEntities, extractHtmlText, htmlToText } from './extract-html-text';

const encode = (text: string) => new TextEncoder().encode(text);

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

  it('keeps paragraph breaks between blocks and collapses whitespace inside them', () => {
    const html =
      '<h1>Title</h1>\n<p>First   line\n  continues\there.</p><p>Second<br>line two</p><ul><li>one</li><li>two</li></ul>';
    expect(htmlToText(html)).toBe('Title\n\nFirst line continues here.\n\nSecond\nline two\n\none\n\ntwo');
  });

  it('keeps a table row on one line with cells joined by a bar', () => {
    const html = '<table><tr><th>Level</th><th>DHW</th></tr><tr><td>1</td><td> 4 </td></tr></table>';
    expect(htmlToText(html)).toBe('Level | DHW\n1 | 4');
  });

  it('strips inline tags without inserting spaces inside words and removes comments', () => {
    expect(htmlToText('<p>Sym<b>bio</b>sis<!-- hidden note --> works</p>')).toBe('Symbiosis works');
  });

  it('decodes entities after stripping tags, so encoded markup stays text', () => {
    expect(htmlToText('<p>&lt;p&gt; is a tag &amp; 5&nbsp;&deg;C &#8364; &#x2014; &unknown;</p>')).toBe(
      '<p> is a tag & 5 °C € — &unknown;',
    );
  });

  it('reads quoted attributes containing > as part of the tag', () => {
    expect(htmlToText('<p><a title="a > b" data-x=\'<c>\'>link</a> text</p>')).toBe('link text');
  });

  it('ends a dropped element only at its own closing tag', () => {
    expect(htmlToText('<p>A</p><script>if (a </scripts) {}</script ><p>B</p><style/><p>C</p>')).toBe(
      'A\n\nB\n\nC',
    );
  });

  it('drops unterminated tags and keeps a bare < that starts no tag', () => {
    expect(htmlToText('<p>1 < 2 and 3 <= 4</p>')).toBe('1 < 2 and 3 <= 4');
    // Thousands of unterminated tags: one linear scan, no regex backtracking (this used to take seconds).
    expect(htmlToText(`<p>kept</p>${'<a '.repeat(20000)}`)).toBe('kept');
  });

  it('treats an unclosed script as running to the end of the document', () => {
    expect(htmlToText('<p>Visible</p><script>never closed <p>hidden</p>')).toBe('Visible');
  });
});

describe('decodeHtmlEntities', () => {
  it('decodes named, decimal and hex references and replaces invalid code points', () => {
    expect(decodeHtmlEntities('&quot;&apos;&rsquo;&#65;&#x1F600;&#0;&#xD800;')).toBe('"\'’A😀\uFFFD\uFFFD');
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
