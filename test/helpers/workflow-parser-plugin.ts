import { readFileSync } from 'node:fs';
import type { Plugin } from 'vite';

/**
 * GitHub's workflow parser (@actions/workflow-parser, which the workflow harness runs through vitest's transform:
 * vitest.config.ts) ships source maps that point at TypeScript sources it does not ship; vite would warn about each
 * of its 60 files in every run. Its files are loaded without the map comment instead.
 */
export const workflowParserWithoutSourceMaps: Plugin = {
  name: 'workflow-parser-without-source-maps',
  load(id) {
    if (!/[\\/]@actions[\\/]workflow-parser[\\/]dist[\\/].*\.js$/.test(id)) return null;
    return { code: readFileSync(id, 'utf8').replace(/^\/\/# sourceMappingURL=.*$/m, ''), map: null };
  },
};
