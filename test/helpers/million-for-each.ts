// The file of issue 47: a nested forEach over a map of about 11 KB, which asks for about a million resources
// (1,000 gateways of 1,000 tokens each). `validate` and the language server must refuse it at the inner forEach.

/** Keys k000 to k999 of the map. */
const keys = Array.from({ length: 1000 }, (_, i) => `k${String(i).padStart(3, '0')}`);

export const millionForEach = `version: 1
variables:
  teams:
    type: map
    default: { ${keys.map((k) => `${k}: 1`).join(', ')} }
projects:
  core: { description: Core }
credentials:
  openai: { provider: openai, secret: { env: OPENAI_API_KEY } }
gateways:
  team:
    forEach: \${var.teams}
    project: core
    defaultProvider: openai
    defaultModel: gpt-4o-mini
    credentials: [openai]
    tokens:
      app:
        forEach: \${var.teams}
        scopes: [run]
`;

/** Where the inner forEach is in millionForEach (1-based line and column). */
export const innerForEachAt = { line: 19, col: 9 };
