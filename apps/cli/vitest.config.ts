import { defineXsbConfig } from '../../vitest.shared.ts';

// Two files at a time: CLI tests mostly wait on child processes (each test has its own ports and folders).
export default defineXsbConfig({ maxWorkers: 2 });
