import { z } from 'zod';

/** `import_manifest.json`: which external deck files were copied where in the normalized deck tree. */
export const deckImportManifestSchema = z.looseObject({
  system: z.string().min(1),
  source_dir: z.string(),
  decks: z.array(
    z.looseObject({
      case_label: z.string().min(1),
      condition: z.string().min(1),
      audience: z.string().min(1),
      source_file: z.string(),
      deck_path: z.string(),
      sha256: z.string(),
    }),
  ),
  skipped: z.array(z.object({ file: z.string(), reason: z.string() })),
});
export type DeckImportManifest = z.infer<typeof deckImportManifestSchema>;
