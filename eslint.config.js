import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The layers of docs/architecture.md, bottom first: every folder of src/ is a key (test/architecture/layers.test.ts
 * fails when one is missing). A folder may import the folders it lists, never another: `no-restricted-imports`
 * below turns an upward static import into a lint error, and `no-restricted-syntax` an upward `import()`.
 * The ground floor (src/errors.ts, src/paint.ts, src/version.ts, src/package-files.ts, text/, generated/, graph/) may
 * be imported by every folder and imports nothing of ours.
 */
export const groundFloor = ['text', 'generated', 'graph'];
/** Folder -> the folders of ours it may import (besides itself and the ground floor). */
export const layers = {
  text: [],
  generated: [],
  // The one graph module (orders, cycles, reachability, waves): plain data, on the ground floor with text/.
  graph: [],
  api: [],
  'plan-model': ['api'],
  config: ['plan-model'],
  github: [],
  crypto: ['api', 'config'],
  state: ['api', 'config', 'plan-model', 'crypto'],
  providers: ['api', 'config', 'plan-model', 'crypto', 'state'],
  // Policies decide whether a change is allowed: the planner runs them as its last stage.
  policy: ['api', 'config', 'plan-model'],
  // Money as exact integers and the gateways' usage read for a plan's spend (the planner's spend check uses them).
  spend: ['api', 'plan-model', 'providers'],
  // The one reader of the live account, with what a plan, an export and the access report each read.
  account: ['api', 'config', 'plan-model', 'crypto', 'state', 'providers'],
  planner: ['api', 'config', 'plan-model', 'crypto', 'state', 'providers', 'account', 'policy', 'spend'],
  // Who can read what and taking it away (the access report, offboarding): they use the planner, which does not know them.
  access: ['api', 'config', 'plan-model', 'crypto', 'state', 'providers', 'account', 'policy', 'planner'],
  applier: ['api', 'config', 'plan-model', 'crypto', 'state'],
  render: ['api', 'config', 'plan-model'],
  ui: ['api', 'config', 'plan-model', 'applier', 'render'],
  export: ['api', 'config', 'plan-model', 'crypto', 'state', 'providers', 'account'],
  // crypto/: the emulator checks that a grant's wrapper opens with the recipient's key (emulator/keys.ts).
  emulator: ['api', 'crypto'],
  demo: ['api', 'emulator'],
  // What a command opens: its context, the connection, where its state is, the workspace (its configuration, read with the kinds' blocks).
  session: ['api', 'config', 'plan-model', 'crypto', 'state', 'providers'],
  // `cplane api` and `cplane mcp`: below the CLI, which hands MCP the commands it runs.
  faces: ['api', 'config', 'session'],
  // Saved plans: written with a MAC, read back, checked before anything opens and against a fresh plan (below the CLI).
  'saved-plan': ['api', 'config', 'plan-model', 'crypto', 'state', 'providers', 'planner', 'session'],
  // `cplane test`: runs a configuration's tests against an emulator in the process (plans, applies, CEL assertions).
  testing: ['api', 'config', 'plan-model', 'crypto', 'state', 'providers', 'policy', 'planner', 'applier', 'emulator'],
  // `cplane lsp`: the language server reads configurations as validate does (the kinds, the policies' compiler, on the
  // session's worker thread) and shows a spend limit as plan normalises it.
  lsp: ['api', 'config', 'plan-model', 'crypto', 'state', 'providers', 'policy', 'spend', 'session'],
  // The top: every other folder.
  cli: [
    'api',
    'config',
    'github',
    'plan-model',
    'crypto',
    'state',
    'providers',
    'account',
    'policy',
    'spend',
    'planner',
    'access',
    'applier',
    'render',
    'ui',
    'export',
    'emulator',
    'demo',
    'session',
    'faces',
    'sdk',
    'testing',
    'saved-plan',
    'lsp',
  ],
  // The SDK: the typed client and local decryption, as an application imports them (package.json `exports`).
  sdk: ['api', 'crypto'],
};

/** One regular expression matching a relative import of any folder `folder` may not import. */
function forbiddenImports(folder) {
  const forbidden = Object.keys(layers).filter(
    (other) => other !== folder && !groundFloor.includes(other) && !layers[folder].includes(other),
  );
  // \x2F is `/`: the same pattern goes into an esquery selector, whose regular expressions cannot hold a slash.
  return `^(\\.\\.\\x2F)+(${forbidden.join('|')})(\\x2F|$)`;
}

const layerRules = Object.keys(layers).map((folder) => {
  const message = `src/${folder}/ may import only ${['errors.ts', 'paint.ts', ...layers[folder].map((f) => `${f}/`)].join(', ')} (docs/architecture.md): a lower layer never imports a higher one.`;
  return {
    files: [`src/${folder}/**/*.{ts,tsx}`],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: forbiddenImports(folder), message }] }],
      'no-restricted-syntax': [
        'error',
        { selector: `ImportExpression[source.value=/${forbiddenImports(folder)}/]`, message: `import(): ${message}` },
      ],
    },
  };
});

export default tseslint.config(
  { ignores: ['dist/**', '**/dist/**', 'node_modules/**', 'coverage/**', '**/.cplane/**', 'src/generated/**', 'action/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        URL: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  ...layerRules,
  {
    // A function a newcomer reads in one pass (issue 49): a longer one is split into named steps.
    files: ['src/**/*.{ts,tsx}', 'packages/sdk/src/**/*.ts', 'scripts/**/*.mjs'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }] },
  },
  {
    // The command's front door is CommonJS (bin/package.json): see the comment at its top.
    files: ['bin/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The MCP server and the other faces never decrypt a record (spec rule 1: plaintext only in trusted clients).
    files: ['src/faces/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^((\\.\\./)+(sdk/|crypto/(read-value|reader-key|data-key-wrap))|@cplane/sdk)',
              message:
                "src/faces/ never decrypts a record value: no import of sdk/ or of the readers' cryptography (@cplane/sdk; docs/access.md).",
            },
          ],
        },
      ],
    },
  },
  {
    // The SDK package (packages/sdk, `@cplane/sdk`) stands alone: its files import each other, Node and @noble/ciphers,
    // never cplane's src/ (cplane imports it, not the other way round), so it installs with one dependency.
    files: ['packages/sdk/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!node:|@noble/ciphers/|\\./)',
              message: 'packages/sdk imports only its own files (./x.js), node: modules and @noble/ciphers (docs/sdk.md).',
            },
          ],
        },
      ],
    },
  },
  {
    // The ground floor imports nothing of ours.
    files: ['src/errors.ts', 'src/paint.ts', 'src/version.ts', 'src/package-files.ts', 'src/text/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.(?!/package-files\\.js$)',
              message:
                'src/errors.ts, src/paint.ts, src/version.ts, src/package-files.ts and src/text/ are the ground floor: they import nothing of ours but package-files.ts (docs/architecture.md).',
            },
          ],
        },
      ],
    },
  },
  {
    // src/text/ is one ground-floor folder: its files may use each other, and nothing above.
    files: ['src/text/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^\\.\\./', message: 'src/text/ is on the ground floor: it imports only its own files (docs/architecture.md).' },
          ],
        },
      ],
    },
  },
);
