/**
 * The checks a plan makes of its steps, once the stages have decided them: the problems that stop it (values a grant
 * needs, models that do not exist, sources a step sends but cannot read), then what it reports beside the steps (the
 * objects left without a value, the spend, the policies' verdicts, what cannot be verified, what is ending or due).
 */
import type { ApiClient } from '../../api/client.js';
import type { Plan, PlanStep, StepClass, WithheldStep } from '../../plan-model/index.js';
import type { Compiled, Sandbox } from '../../policy/index.js';
import { PlanError } from '../errors.js';
import type { PlanProblem } from '../problems.js';
import type { PlannedInputs } from '../stage-inputs.js';
import { grantsWithoutValue } from './grants-without-value.js';
import { findNotices } from './notices.js';
import { checkPolicies } from './policies.js';
import { planSpend } from './spend.js';
import { withoutValue } from './without-value.js';

export interface CheckInput {
  after: PlannedInputs;
  steps: PlanStep[];
  targets: readonly string[];
  /** Whether an address is in the plan's scope (`--target`, `--exclude`). */
  covers: (address: string) => boolean;
  /** The problems the stages found; those of a withheld address do not stop the rest. */
  problems: PlanProblem[];
  withheld: readonly WithheldStep[];
  /** `cplane reconcile`'s classes, when it plans. */
  classes: readonly StepClass[] | undefined;
  client: ApiClient;
  parallelism: number;
  compiled: Compiled | undefined;
  sandbox: Sandbox | undefined;
  /** Where the sources of write-only values are looked for (a refresh-only plan says which are absent). */
  env: NodeJS.ProcessEnv;
}

/** What the checks add to a plan. */
export type PlanChecks = Pick<Plan, 'notices' | 'spend' | 'policies'>;

export async function checkSteps(input: CheckInput): Promise<PlanChecks> {
  const { after, steps, targets, classes } = input;
  const { mode, desiredByAddress, state, known } = after;
  const withheldAddresses = new Set(input.withheld.map((w) => w.address));
  const emptyRecords = withoutValue(after, steps, targets).filter(input.covers);
  // A source reconcile cannot read matters only to a step it applies that sends it: unread, the value could only
  // differ by a change of the configuration, which a reconcile that may not apply changes withholds anyway.
  const sentSources = new Set(steps.filter((s) => s.secrets).map((s) => s.address));
  const unreadSourceMatters = (p: PlanProblem) =>
    p.code !== 'secret_unavailable' || !classes || classes.includes('change') || sentSources.has(p.address!);
  const problems = [
    ...input.problems,
    ...grantsWithoutValue(steps, emptyRecords, desiredByAddress, (address) => state[address]?.id),
  ].filter((p) => (p.address === undefined || !withheldAddresses.has(p.address)) && unreadSourceMatters(p));
  // A Service Account token may not list Service Accounts (a human-only operation): the grant is a warning on its
  // step, and the apply, which needs a person's token anyway, checks it (issue 48 §2).
  const checkedAtApply =
    input.client.identity === 'service_account' ? problems.filter((p) => p.code === 'service_accounts_unreadable') : [];
  const blocking = problems.filter((p) => !checkedAtApply.includes(p));
  if (blocking.length > 0) throw new PlanError(blocking);
  // Spend is read and computed only when a step touches it (a limit, a window, allowed models, a rate).
  const spent =
    mode === 'refresh-only' ? undefined : await planSpend({ given: after, steps, client: input.client, parallelism: input.parallelism });
  const notices = findNotices({
    after,
    steps,
    targets,
    covers: input.covers,
    emptyRecords,
    spendWarnings: spent?.warnings ?? [],
    env: input.env,
    checkedAtApply,
  });
  const spend = spent?.spend;
  const policies = await checkPolicies(input.compiled, input.sandbox, steps, desiredByAddress, state, spend, notices, known.now);
  return { notices, ...(spend ? { spend } : {}), ...(policies ? { policies } : {}) };
}
