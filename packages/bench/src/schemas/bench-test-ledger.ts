import { z } from 'zod';

/** The git state a bench record names: `sha` null outside a git repository (then `dirty` is null too). */
export const benchGitStateSchema = z.looseObject({
  sha: z
    .string()
    .regex(/^[0-9a-f]{40}$/)
    .nullable(),
  dirty: z.boolean().nullable(),
});
export type BenchGitState = z.infer<typeof benchGitStateSchema>;

/**
 * A line of `<data>/bench/test_ledger.jsonl`: one opening of the sealed test split (`--split test` or
 * `--split all` with `--unseal-test`), appended and synced before the run's first judge call.
 */
export const benchTestLedgerEntrySchema = z.looseObject({
  time: z.string().min(1),
  run_id: z.string().min(1),
  split: z.enum(['test', 'all']),
  configurations: z.array(z.string().min(1)),
  git: benchGitStateSchema,
});
export type BenchTestLedgerEntry = z.infer<typeof benchTestLedgerEntrySchema>;
