import { z } from 'zod';

/**
 * Free-form metadata. Spec 000 says extra fields may appear (model ids, chunk settings, prompts,
 * debugging information): every key is kept on read and written back unchanged.
 */
export const metadataSchema = z.record(z.string(), z.unknown());
