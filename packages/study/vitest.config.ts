import { defineXsbConfig } from '../../vitest.shared.ts';

export default defineXsbConfig();
