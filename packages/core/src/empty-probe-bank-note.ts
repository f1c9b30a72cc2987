/** What every stage after `xsb probes` says of a case whose finished probe bank is empty. */
export function emptyProbeBankNote(caseLabel: string): string {
  return `case ${caseLabel}: 0 probes, contributes no coverage`;
}
