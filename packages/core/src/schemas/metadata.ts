import { z } from 'zod';

/** Spec 000 says extra fields may appear: every key is kept on read and written back unchanged. */
export const metadataSchema = z.record(z.string(), z.unknown());
