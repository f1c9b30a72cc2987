import { child, childrenNamed, type XmlNode } from './xml-tree';

const DEFAULT_FONT_SIZE = 18;

export interface TextBodyContent {
  text: string;
  /** Effective size in points of every run with visible characters, in reading order. */
  fontSizes: number[];
  bulletCount: number;
}

const BULLET_ON = new Set(['buChar', 'buAutoNum', 'buBlip']);

/** Level styles from the most specific (layout placeholder) to the most general; the first setting wins. */
export type StyleChain = Array<XmlNode | undefined>;

/** The first setting of a paragraph level along the chain. */
function inherited<T>(
  chain: StyleChain,
  level: number,
  read: (props?: XmlNode) => T | undefined,
): T | undefined {
  for (const style of chain) {
    const value = read(child(style, `lvl${level + 1}pPr`));
    if (value !== undefined) return value;
  }
  return undefined;
}

/** An `sz` in hundredths of a point, in points. */
function sizeOf(props: XmlNode | undefined): number | undefined {
  const size = props?.attrs.sz;
  return size !== undefined && Number.isFinite(Number(size)) ? Number(size) / 100 : undefined;
}

function bulletSetting(props: XmlNode | undefined): boolean | undefined {
  if (!props) return undefined;
  for (const item of props.children) {
    if (item.name === 'buNone') return false;
    if (BULLET_ON.has(item.name)) return true;
  }
  return undefined;
}

/** `a:normAutofit fontScale="62500"` shrinks every run to 62.5 %: the size the audience sees. */
function autofitScale(bodyPr: XmlNode | undefined): number {
  const scale = child(bodyPr, 'normAutofit')?.attrs.fontScale;
  if (scale === undefined) return 1;
  const value = Number(scale.replace('%', ''));
  if (!Number.isFinite(value) || value <= 0) return 1;
  return scale.endsWith('%') ? value / 100 : value / 100_000;
}

function runText(run: XmlNode): string {
  const t = child(run, 't');
  return t ? t.children.map((item) => item.text).join('') : '';
}

/** Sizes resolve run `sz` → level styles along the chain → 18 pt, then autofit. */
export function readTextBody(txBody: XmlNode | undefined, chain: StyleChain): TextBodyContent {
  if (!txBody) return { text: '', fontSizes: [], bulletCount: 0 };
  const fullChain: StyleChain = [child(txBody, 'lstStyle'), ...chain];
  const scale = autofitScale(child(txBody, 'bodyPr'));
  const lines: string[] = [];
  const fontSizes: number[] = [];
  let bulletCount = 0;
  for (const paragraph of childrenNamed(txBody, 'p')) {
    const pPr = child(paragraph, 'pPr');
    const level = Math.min(8, Math.max(0, Number(pPr?.attrs.lvl ?? 0) || 0));
    const levelSize =
      inherited(fullChain, level, (props) => sizeOf(child(props, 'defRPr'))) ?? DEFAULT_FONT_SIZE;
    let text = '';
    for (const item of paragraph.children) {
      if (item.name === 'br') {
        text += '\n';
        continue;
      }
      if (item.name !== 'r' && item.name !== 'fld') continue;
      const value = runText(item);
      text += value;
      if (value.trim() === '') continue;
      const size = sizeOf(child(item, 'rPr')) ?? levelSize;
      fontSizes.push(Math.round(size * scale * 10) / 10);
    }
    lines.push(text);
    if (text.trim() !== '' && (bulletSetting(pPr) ?? inherited(fullChain, level, bulletSetting)))
      bulletCount++;
  }
  return { text: lines.join('\n').replace(/\n+$/, ''), fontSizes, bulletCount };
}
