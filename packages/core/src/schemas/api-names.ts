import { z } from 'zod';

/** Names Windows reserves for devices, with or without an extension (`nul.txt` too). */
const RESERVED_NAME = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;

/**
 * A name that becomes a path part when it arrives over the network (case, system, run, audience,
 * condition): only `[A-Za-z0-9._-]`, at most 200 characters, not starting with a dot (so never `.`,
 * `..` nor a hidden folder like `.git`), never holding `..`, and not a device name some file system
 * reserves (`con`, `nul`, `com1`, …). Stricter than `assertSafePathPart` (which local files pass
 * through), so a request can never name a folder outside its place, nor one that only some file
 * systems can hold, and what the door accepts the job can always write.
 */
export const portableNameSchema = z
  .string()
  .min(1, 'is empty')
  .max(200, 'is longer than 200 characters')
  .regex(/^[A-Za-z0-9._-]+$/, 'may only hold letters A-Z a-z, digits and . _ -')
  .refine((value) => !value.startsWith('.'), 'may not start with "."')
  .refine((value) => !value.includes('..'), 'may not hold ".."')
  .refine((value) => !RESERVED_NAME.test(value), 'is a name file systems reserve (con, nul, com1, …)');

/**
 * The scopes a bearer token can carry: `evaluate` posts jobs and cancels its own, `read` reads its own
 * jobs and the runs, `admin` reads and cancels every token's jobs.
 */
export const API_SCOPES = ['evaluate', 'read', 'admin'] as const;
export type ApiScope = (typeof API_SCOPES)[number];
