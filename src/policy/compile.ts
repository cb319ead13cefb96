/**
 * Compiling the configuration's policies: each rule is parsed and
 * type-checked as CEL (with @marcbachmann/cel-js) against the variables a
 * rule sees, and must give a bool. A rule that does not compile is a
 * diagnostic at the rule's line, for `cplane validate` and for every plan.
 * The CEL library is loaded here, on first use, so commands and
 * configurations without policies never load it.
 */
import { createHash } from 'node:crypto';
import { canonicalJson, type Diagnostic, type Policy } from '../config/index.js';

/** A rule ready to evaluate: a function of the variables (see variables.ts). */
export type Evaluate = (variables: Record<string, unknown>) => unknown;

export interface CompiledPolicy {
  policy: Policy;
  evaluate: Evaluate;
}

export interface Compiled {
  policies: CompiledPolicy[];
  /** One per rule that does not compile; `policies` then leaves it out. */
  diagnostics: Diagnostic[];
  /** sha256 of what the policies say, recorded in a plan (a saved plan made under other policies is refused). */
  digest: string;
}

/** The first line of a CEL error (the rest is its own snippet of the rule, kept for the detail). */
const firstLine = (text: string) => text.split('\n')[0] ?? text;

export function policyDigest(policies: readonly Policy[]): string {
  const said = policies.map(({ name, level, kinds, actions, rule, message }) => ({ name, level, kinds, actions, rule, message }));
  return createHash('sha256').update(canonicalJson(said)).digest('hex');
}

export async function compilePolicies(policies: readonly Policy[]): Promise<Compiled> {
  const { Environment } = await import('@marcbachmann/cel-js');
  // The variables every rule sees (docs/policies.md): an unknown name is a compile error, not a runtime surprise.
  const env = new Environment({ unlistedVariablesAreDyn: false })
    .registerVariable('action', 'string')
    .registerVariable('address', 'string')
    .registerVariable('kind', 'string')
    .registerVariable('before', 'dyn')
    .registerVariable('after', 'dyn')
    // The API's clock when the plan is made: a rule can bound a time the configuration gives (a grant's `until`).
    .registerVariable('now', 'google.protobuf.Timestamp');
  const compiled: CompiledPolicy[] = [];
  const diagnostics: Diagnostic[] = [];
  const problem = (policy: Policy, code: string, summary: string, detail: string) =>
    diagnostics.push({ severity: 'error', code, summary: `Policy "${policy.name}": ${summary}`, detail, range: policy.source });
  for (const policy of policies) {
    let parsed: ReturnType<typeof env.parse>;
    try {
      parsed = env.parse(policy.rule);
    } catch (error) {
      const message = (error as Error).message;
      problem(policy, 'policy_syntax', `the rule is not valid CEL: ${firstLine(message)}`, message.split('\n').slice(1).join('\n').trim());
      continue;
    }
    const checked = parsed.check();
    if (!checked.valid) {
      const message = checked.error?.message ?? 'type error';
      problem(policy, 'policy_type', `the rule does not type-check: ${firstLine(message)}`, `${message.split('\n').slice(1).join('\n').trim()}\nA rule sees action, address, kind (strings), before and after (maps, or null), now (a timestamp); docs/policies.md.`.trim());
      continue;
    }
    if (checked.type !== 'bool' && checked.type !== 'dyn') {
      problem(policy, 'policy_not_bool', `the rule gives a ${checked.type}, not a bool`, 'A rule is true when the change is allowed, e.g. `after.expiresInDays != null && after.expiresInDays <= 90`.');
      continue;
    }
    compiled.push({ policy, evaluate: (variables) => parsed(variables) });
  }
  return { policies: compiled, diagnostics, digest: policyDigest(policies) };
}
