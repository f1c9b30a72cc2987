import type { ExitCode } from './command-module';

let current: ExitCode = 0;

/** The highest code reported wins; scoped to one parse so in-process test runs do not leak codes. */
export async function setActionExitCode(run: () => Promise<unknown>): Promise<ExitCode> {
  current = 0;
  await run();
  const code = current;
  current = 0;
  return code;
}

export function reportExitCode(code: ExitCode): void {
  if (code > current) current = code;
}
