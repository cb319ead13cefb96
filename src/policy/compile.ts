/**
 * Compiling the configuration's policies: each rule is parsed and
 * type-checked as CEL (with @marcbachmann/cel-js) against the variables a
 * rule sees, must give a bool, and must stay within the cost bound (cost.ts),
 * since a rule from a pull request is untrusted code run once per change. A
 * rule that does not compile is a diagnostic at the rule's line, for
 * `cplane validate` and for every plan. The rules are evaluated elsewhere, in
 * a worker that can be stopped (sandbox.ts). The CEL library is loaded here,
 * on first use, so commands and configurations without policies never load it.
 */
import { createHash } from 'node:crypto';
import { canonicalJson, type Diagnostic, type Policy } from '../config/index.js';
import { MAX_RULE_COST, ruleCost, UNKNOWN_SIZE, type RuleCost } from './cost.js';
import { ENVIRONMENT_OPTIONS, RULE_VARIABLES } from './rule-variables.js';

/** How long a policy may take over one plan when it sets no `timeoutMs` (and the most it may set). */
export const DEFAULT_TIMEOUT_MS = 5_000;

export interface CompiledPolicy {
  policy: Policy;
  /** The rule's estimated cost for one change (within MAX_RULE_COST). */
  cost: RuleCost;
}

export interface Compiled {
  policies: CompiledPolicy[];
  /** One per rule that does not compile; `policies` then leaves it out. */
  diagnostics: Diagnostic[];
  /** sha256 of what the policies say, recorded in a plan (a saved plan made under other policies is refused). */
  digest: string;
}

/** A step count as people read it: 5,000 or 1.6e10. */
const steps = (n: number) => (n < 1e9 ? Math.round(n).toLocaleString('en-US') : n.toExponential(1).replace('e+', 'e'));

/** The first line of a CEL error (the rest is its own snippet of the rule, kept for the detail). */
const firstLine = (text: string) => text.split('\n')[0] ?? text;

export function policyDigest(policies: readonly Policy[]): string {
  // A deadline is part of what a policy says only when it sets one, so older plans keep their digest.
  const said = policies.map(({ name, level, kinds, actions, rule, message, timeoutMs }) => ({
    name,
    level,
    kinds,
    actions,
    rule,
    message,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  }));
  return createHash('sha256').update(canonicalJson(said)).digest('hex');
}

export async function compilePolicies(policies: readonly Policy[]): Promise<Compiled> {
  const { Environment } = await import('@marcbachmann/cel-js');
  let env = new Environment(ENVIRONMENT_OPTIONS);
  for (const [name, type] of RULE_VARIABLES) env = env.registerVariable(name, type);
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
      problem(
        policy,
        'policy_type',
        `the rule does not type-check: ${firstLine(message)}`,
        `${message.split('\n').slice(1).join('\n').trim()}\nA rule sees action, address, kind (strings), before and after (maps, or null), plan (a map), usage (a map, or null) and now (a timestamp); docs/policies.md.`.trim(),
      );
      continue;
    }
    if (checked.type !== 'bool' && checked.type !== 'dyn') {
      problem(
        policy,
        'policy_not_bool',
        `the rule gives a ${checked.type}, not a bool`,
        'A rule is true when the change is allowed, e.g. `after.expiresInDays != null && after.expiresInDays <= 90`.',
      );
      continue;
    }
    const cost = ruleCost(parsed.ast);
    if (cost.steps > MAX_RULE_COST) {
      problem(
        policy,
        'policy_too_costly',
        `the rule may take about ${steps(cost.steps)} steps for one change (${cost.depth} nested macro${cost.depth === 1 ? '' : 's'} over up to ${cost.widest} elements each); at most ${MAX_RULE_COST.toLocaleString('en-US')} are allowed`,
        `A rule runs once for every planned change, so its cost is bounded before it runs: each macro (all, exists, exists_one, map, filter) runs its body once per element, and nested macros multiply. A list the rule does not write out (after.scopes) counts as ${UNKNOWN_SIZE} elements. Nest fewer macros or iterate over fewer elements; docs/policies.md#bounds.`,
      );
      continue;
    }
    compiled.push({ policy, cost });
  }
  return { policies: compiled, diagnostics, digest: policyDigest(policies) };
}
