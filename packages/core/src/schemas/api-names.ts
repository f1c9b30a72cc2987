import { z } from 'zod';

/** Names Windows reserves for devices, with or without an extension (`nul.txt` too). */
const RESERVED_NAME = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;

/** A name arriving over the network: stricter than `assertSafePathPart`, so every file system can hold it. */
export const portableNameSchema = z
  .string()
  .min(1, 'is empty')
  .max(200, 'is longer than 200 characters')
  .regex(/^[A-Za-z0-9._-]+$/, 'may only hold letters A-Z a-z, digits and . _ -')
  .refine((value) => !value.startsWith('.'), 'may not start with "."')
  .refine((value) => !value.includes('..'), 'may not hold ".."')
  .refine((value) => !RESERVED_NAME.test(value), 'is a name file systems reserve (con, nul, com1, …)');

/** `evaluate` posts jobs and cancels its own, `read` reads its own jobs and the runs, `admin` all jobs. */
export const API_SCOPES = ['evaluate', 'read', 'admin'] as const;
export type ApiScope = (typeof API_SCOPES)[number];
