import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** `KEY=value`, optional `export `, single or double quotes, `#` comments; values are never logged. */
export function parseDotenv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (!line || line.startsWith('#')) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/.exec(line);
    if (!match) continue;
    const key = match[1]!;
    let value = match[2] ?? '';
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.lastIndexOf(quote) > 0) {
      value = value.slice(1, value.lastIndexOf(quote));
      if (quote === '"') value = value.replace(/\\n/g, '\n').replace(/\\"/g, '"');
    } else {
      value = value.replace(/\s+#.*$/, '').trim();
    }
    out[key] = value;
  }
  return out;
}

/** The environment with `.env` from `cwd` underneath it (a missing `.env` is no error). */
export function environmentWithDotenv(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  let merged: Record<string, string> = {};
  try {
    merged = parseDotenv(readFileSync(join(cwd, '.env'), 'utf8'));
  } catch {}
  for (const [key, value] of Object.entries(env)) if (value !== undefined) merged[key] = value;
  return merged;
}
