/**
 * What every rule sees (docs/policies.md), declared once for the compiler (compile.ts) and for the worker
 * that evaluates the rules (sandbox.ts): an unknown name is a compile error, not a runtime surprise.
 */
export const RULE_VARIABLES: readonly (readonly [name: string, type: string])[] = [
  ['action', 'string'],
  ['address', 'string'],
  ['kind', 'string'],
  ['before', 'dyn'],
  ['after', 'dyn'],
  // The plan's maximum authorised spend, before, after and delta, in dollars (docs/insight.md).
  ['plan', 'dyn'],
  // The changed gateway's or token's usage of the last 7 days, or null (`usage.spend7d`, `usage.requests7d`).
  ['usage', 'dyn'],
  // The API's clock when the plan is made: a rule can bound a time the configuration gives (a grant's `until`).
  ['now', 'google.protobuf.Timestamp'],
];

export const ENVIRONMENT_OPTIONS = { unlistedVariablesAreDyn: false } as const;
