import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The layers of docs/architecture.md, bottom first. A folder may import the folders listed before it,
 * never one listed after it (nor a folder it shares no layer with): `no-restricted-imports` below turns
 * an upward import into a lint error. cli/, demo/ and the faces on top may import anything.
 */
const allFolders = ['api', 'plan-model', 'config', 'crypto', 'state', 'providers', 'planner', 'applier', 'render', 'ui', 'export', 'emulator', 'cli', 'demo', 'faces', 'github'];
/** Folder -> the folders of ours it may import (besides itself and the ground-floor files src/errors.ts, src/paint.ts). */
export const layers = {
  api: [],
  'plan-model': ['api'],
  config: ['plan-model'],
  // crypto -> state is being removed on the state-speed branch (SealedValue moves to crypto/).
  crypto: ['api', 'config', 'state'],
  state: ['api', 'config', 'plan-model', 'crypto'],
  providers: ['api', 'config', 'plan-model', 'crypto', 'state'],
  planner: ['api', 'config', 'plan-model', 'crypto', 'state', 'providers'],
  applier: ['api', 'config', 'plan-model', 'crypto', 'state'],
  render: ['api', 'config', 'plan-model'],
  ui: ['api', 'config', 'plan-model', 'applier', 'render'],
  export: ['api', 'config', 'plan-model', 'crypto', 'state', 'providers'],
  emulator: ['api'],
};

/** One regular expression matching a relative import of any folder `folder` may not import. */
function forbiddenImports(folder) {
  const forbidden = allFolders.filter((other) => other !== folder && !layers[folder].includes(other));
  return `^(\\.\\./)+(${forbidden.join('|')})(/|$)`;
}

const layerRules = Object.keys(layers).map((folder) => ({
  files: [`src/${folder}/**/*.{ts,tsx}`],
  rules: {
    'no-restricted-imports': ['error', {
      patterns: [{ regex: forbiddenImports(folder), message: `src/${folder}/ may import only ${['errors.ts', 'paint.ts', ...layers[folder].map((f) => `${f}/`)].join(', ')} (docs/architecture.md): a lower layer never imports a higher one.` }],
    }],
  },
}));

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '**/.cplane/**', 'src/generated/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', URL: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  ...layerRules,
  {
    // The command's front door is CommonJS (bin/package.json): see the comment at its top.
    files: ['bin/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The ground floor imports nothing of ours.
    files: ['src/errors.ts', 'src/paint.ts', 'src/version.ts', 'src/package-files.ts', 'src/text/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '^\\.(?!/package-files\\.js$)', message: 'src/errors.ts, src/paint.ts, src/version.ts, src/package-files.ts and src/text/ are the ground floor: they import nothing of ours but package-files.ts (docs/architecture.md).' }] }] },
  },
);
