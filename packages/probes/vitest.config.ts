import { defineXsbConfig } from '../../vitest.shared';

export default defineXsbConfig();
