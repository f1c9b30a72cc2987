import { join } from 'node:path';
import PptxGenJS from 'pptxgenjs';

// pptxgenjs's types are CommonJS-shaped: under node16 resolution `typeof PptxGenJS` is the module, not the
// class, so InstanceType<…> broke the published testing.d.ts there. `.default` names the class either way.
type Pptx = import('pptxgenjs').default;
type Slide = ReturnType<Pptx['addSlide']>;

/** A 1×1 grey PNG: enough for a picture shape with a position and size. */
const ONE_PIXEL_PNG =
  'image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==';

const TITLE = { x: 0.5, y: 0.3, w: 9, h: 0.8, fontSize: 28, bold: true } as const;

function bullets(slide: Slide, lines: string[], fontSize = 20, box = { x: 0.5, y: 1.3, w: 9, h: 3.4 }): void {
  slide.addText(
    lines.map((text) => ({ text, options: { bullet: true, breakLine: true } })),
    { ...box, fontSize, valign: 'top' },
  );
}

function source(slide: Slide, text: string): void {
  slide.addText(text, { x: 0.5, y: 4.9, w: 5, h: 0.4, fontSize: 12 });
}

function newDeck(): Pptx {
  const pptx = new PptxGenJS();
  pptx.layout = 'LAYOUT_16x9'; // 10 x 5.625 in = 720 x 405 pt
  return pptx;
}

/** A tidy four-slide lecture deck: titles, at most five 20 pt bullets, a source line, nothing overlapping. */
export function buildCleanDeck(): Pptx {
  const pptx = newDeck();
  const topics: Array<[string, string[]]> = [
    [
      'Bits and Boolean Operations',
      [
        'A bit is a binary digit',
        'AND: 1 only when both inputs are 1',
        'OR: 1 when any input is 1',
        'XOR: 1 only when inputs differ',
        'NOT inverts its input',
      ],
    ],
    [
      'Main Memory',
      ['Cells of 8 bits (one byte)', 'Every cell has an address', 'High-order and low-order ends'],
    ],
    [
      'Mass Storage',
      ['Tracks, sectors and cylinders', 'Seek time and rotation delay', 'Flash memory has no moving parts'],
    ],
    ['Data Compression', ['Lossless versus lossy', 'Run-length encoding', 'Huffman and LZW dictionaries']],
  ];
  topics.forEach(([title, lines], index) => {
    const slide = pptx.addSlide();
    slide.addText(title, TITLE);
    bullets(slide, lines);
    source(slide, `Source: Section 1.${index + 1}`);
  });
  return pptx;
}

/**
 * One planted defect per slide (slide 1 is clean): 2 eight bullets, 3 10 pt text, 4 two overlapping
 * text boxes and a picture over the second, 5 empty, 6 a text box running off the right edge, 7 a slide in Chinese.
 */
export function buildDefectDeck(): Pptx {
  const pptx = newDeck();
  const intro = pptx.addSlide();
  intro.addText('Data Storage', TITLE);
  bullets(intro, ['Bits, memory and storage', 'Representation and compression']);

  const crowded = pptx.addSlide();
  crowded.addText('Too Many Bullets', TITLE);
  bullets(
    crowded,
    ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'].map((word) => `Point ${word}`),
    14,
  );

  const tiny = pptx.addSlide();
  tiny.addText('Small Print', TITLE);
  bullets(tiny, ['This footnote-sized text is set in ten point'], 10);

  const overlap = pptx.addSlide();
  overlap.addText('Overlapping Boxes', TITLE);
  overlap.addText('First text box with its own content', { x: 1, y: 1.5, w: 5, h: 1.5, fontSize: 20 });
  overlap.addText('Second text box drawn over the first', { x: 2, y: 2, w: 5, h: 1.5, fontSize: 20 });
  overlap.addImage({ data: ONE_PIXEL_PNG, x: 6.5, y: 2.2, w: 2, h: 1.5 });

  pptx.addSlide();

  const offSlide = pptx.addSlide();
  offSlide.addText('Off the Edge', TITLE);
  offSlide.addText('This text box starts near the right edge and runs past it', {
    x: 8,
    y: 2,
    w: 4,
    h: 1,
    fontSize: 20,
  });

  const chinese = pptx.addSlide();
  chinese.addText('数据存储概述', TITLE);
  bullets(chinese, ['比特是二进制数字', '主存储器由单元组成', '每个单元都有地址']);
  return pptx;
}

/** Writes `clean.pptx` and `defects.pptx` into `dir` and returns their paths. */
export async function writeLayoutFixtureDecks(dir: string): Promise<{ clean: string; defects: string }> {
  const clean = join(dir, 'clean.pptx');
  const defects = join(dir, 'defects.pptx');
  await buildCleanDeck().writeFile({ fileName: clean });
  await buildDefectDeck().writeFile({ fileName: defects });
  return { clean, defects };
}

const LECTURE_POINTS = [
  'A bit is a symbol whose meaning depends on the application at hand',
  'Boolean AND outputs 1 only when both of its inputs are 1',
  'XOR outputs 1 only when its two inputs differ from each other',
  'A flip-flop holds a 0 or 1 until an external pulse changes it',
  'Hexadecimal notation writes each 4-bit pattern as one symbol from 0 to F',
  'Main memory consists of 8-bit cells, each identified by an address',
  'Disks store data on tracks divided into sectors, grouped in cylinders',
  'Flash memory stores bits in silicon dioxide chambers without moving parts',
  'Unicode uses 16-bit patterns to cover the characters of many languages',
  'Two’s complement negates by copying bits up to the first 1, then complementing',
  'Floating point splits a byte into sign bit, exponent field and mantissa field',
  'Hamming distance of 2x+1 lets a receiver correct x single-bit errors',
];

/** A plain lecture deck of `count` slides, each a title, five 20 pt bullets and a source line. */
export async function writeLectureDeck(dir: string, count: number): Promise<string> {
  const pptx = newDeck();
  for (let index = 0; index < count; index += 1) {
    const slide = pptx.addSlide();
    slide.addText(`Data Storage, Part ${index + 1}`, TITLE);
    bullets(
      slide,
      Array.from({ length: 5 }, (_, k) => LECTURE_POINTS[(index * 5 + k) % LECTURE_POINTS.length] as string),
    );
    source(slide, `Source: Chapter 1, Section 1.${(index % 9) + 1}`);
  }
  const file = join(dir, `lecture-${count}.pptx`);
  await pptx.writeFile({ fileName: file });
  return file;
}

/** Nine short lines: a plain text box (no bullet markup) that overcrowds its slide. */
export const NINE_PLAIN_LINES = Array.from({ length: 9 }, (_, k) => `Plain line number ${k + 1}`);

/** One long paragraph that wraps over several lines in a 4.5 in wide box (continuations start lower-case). */
export const WRAPPED_PARAGRAPH =
  'Main memory consists of cells of eight bits each, and every cell is identified by a unique address that the processor uses whenever it reads or writes data in the cell';

/**
 * A deck made the way many generators make decks: text boxes only, no placeholders, no bullet markup.
 * 1 a title and a text box of nine plain lines; 2 only a title; 3 only a picture; 4 only a drawn
 * rectangle; 5 a title and six plain lines; 6 a title and one paragraph wrapping over several lines.
 */
export function buildTextBoxDeck(): Pptx {
  const pptx = newDeck();
  const titled = (title: string): Slide => {
    const slide = pptx.addSlide();
    slide.addText(title, TITLE);
    return slide;
  };
  titled('Nine Plain Lines').addText(NINE_PLAIN_LINES.join('\n'), {
    x: 0.5,
    y: 1.3,
    w: 9,
    h: 3.6,
    fontSize: 16,
  });
  titled('Agenda');
  pptx.addSlide().addImage({ data: ONE_PIXEL_PNG, x: 1, y: 1, w: 4, h: 3 });
  pptx.addSlide().addShape('rect', { x: 1, y: 1, w: 3, h: 2, fill: { color: '336699' } });
  titled('Six Plain Lines').addText(NINE_PLAIN_LINES.slice(0, 6).join('\n'), {
    x: 0.5,
    y: 1.3,
    w: 9,
    h: 3.4,
    fontSize: 16,
  });
  titled('One Wrapped Paragraph').addText(WRAPPED_PARAGRAPH, {
    x: 0.5,
    y: 1.3,
    w: 4.5,
    h: 3,
    fontSize: 18,
    valign: 'top',
  });
  return pptx;
}

export async function writeTextBoxDeck(dir: string): Promise<string> {
  const file = join(dir, 'text-boxes.pptx');
  await buildTextBoxDeck().writeFile({ fileName: file });
  return file;
}
