import { describeError, isXsbError } from '@xsb/core';

/**
 * Libraries name what to do in their own terms; only the CLI knows its flags, so the flag to type is added
 * here, by error code (and the details that tell which parser failed).
 */
function adviceFor(error: unknown): string | undefined {
  if (!isXsbError(error)) return undefined;
  if (error.code === 'no_text_layer' && error.details?.parser === 'unpdf') return 'use --pdf-parser mineru';
  if (error.code === 'mineru_not_configured') return 'or use --pdf-parser unpdf';
  return undefined;
}

/** The error's message as the CLI prints and records it: the library's reason, then the flag that helps. */
export function describeCliError(error: unknown): string {
  const advice = adviceFor(error);
  return advice ? `${describeError(error)} (${advice})` : describeError(error);
}
