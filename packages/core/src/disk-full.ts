/**
 * Codes of a write that found no room: the disk (ENOSPC) or the user's quota (EDQUOT) is full, or
 * SQLite could not grow its database or journal for it (SQLITE_FULL, as better-sqlite3 reports it).
 */
const DISK_FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);

/**
 * True when `error`, or an error it was caused by, is a write that found the disk or the quota full —
 * a fault that passes once space returns, so callers answer "try later" (HTTP 507) or retry, rather
 * than failing for good.
 */
export function isDiskFull(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 8; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && DISK_FULL_CODES.has(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
