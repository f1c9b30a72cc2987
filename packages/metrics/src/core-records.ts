/**
 * @xsb/core's schemas and JSON-file helpers, loaded when a function that reads or writes records first runs:
 * they load zod (about 100 ms here), and `import '@xsb/metrics'` for its pure functions should not pay that.
 */
export const loadCoreRecords = (): Promise<typeof import('@xsb/core')> => import('@xsb/core');
