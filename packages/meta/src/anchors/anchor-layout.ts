import { join } from 'node:path';
import { assertSafePathPart } from '@xsb/core';
import { judgeFileName } from './judge-file-name';

/** `<data>/meta/anchors/<id>/`: anchor_set.json, decks/, verdicts/, checks/<judge>.json. */
export function anchorsRoot(dataDir: string): string {
  return join(dataDir, 'meta', 'anchors');
}

export function anchorDir(dataDir: string, id: string): string {
  return join(anchorsRoot(dataDir), assertSafePathPart(id, 'anchor set id'));
}

export function anchorSetFile(dataDir: string, id: string): string {
  return join(anchorDir(dataDir, id), 'anchor_set.json');
}

export function anchorCheckFile(dataDir: string, id: string, judge: string): string {
  return join(anchorDir(dataDir, id), 'checks', `${judgeFileName(judge)}.json`);
}

/** The run a check evaluates the anchor decks in: `<id>@anchors`. */
export function anchorRunName(id: string): string {
  return `${id}@anchors`;
}
