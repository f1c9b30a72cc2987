import { z } from 'zod';

export const hashedInputSchema = z.looseObject({
  role: z.string().min(1),
  path: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be a lowercase hex sha256'),
});

/** `run_manifest.json`: enough to tell whether an existing result may be reused. */
export const runManifestSchema = z.looseObject({
  stage: z.string().min(1),
  created_at: z.string().min(1),
  xsb_version: z.string().min(1),
  inputs: z.array(hashedInputSchema),
  judges: z.record(z.string(), z.string()),
  settings: z.record(z.string(), z.unknown()),
  versions: z.record(z.string(), z.string()).default({}),
});
export type RunManifest = z.infer<typeof runManifestSchema>;
