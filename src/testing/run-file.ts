/**
 * Running one test file: its runs, in order, against one fresh emulator started in this process (the
 * fixtures' accounts, plus the configuration's own account, empty, when the fixtures lack it) and one
 * state in a temporary folder under a key made for the file, so an apply run is seen by the runs after
 * it, and nothing of the machine (its state, its key, its environment, a real account) is read or written.
 * A run loads the configuration with its variables and environment, plans as `cplane plan` does, applies
 * as `cplane apply --auto-approve` does, then checks its assertions over what it made (facts.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createClient, type ApiClient } from '../api/index.js';
import { applyPlan, stateKeyRing } from '../applier/index.js';
import { formatDiagnostic, resolveSecret, SharedLoads, type DesiredState, type Diagnostic } from '../config/index.js';
import { fixtures, startEmulator, type RunningEmulator } from '../emulator/index.js';
import { blockingFindings, findingLine, hasChanges, type Plan } from '../plan-model/index.js';
import { makePlan } from '../planner/index.js';
import { loadConfiguration } from '../providers/index.js';
import { openState, type StateStore } from '../state/index.js';
import { safeLines } from '../text/safe-text.js';
import { AssertionChecker, namesRead, type Assertion } from './assertions.js';
import { planFacts, type ApplyOutcome } from './facts.js';
import { readTestFile, type TestFile, type TestRun } from './test-file.js';

/** The account a run plans in when neither the test file nor the configuration names one. */
export const DEFAULT_TEST_ACCOUNT = fixtures.accounts[0]!.id;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface AssertionResult {
  expression: string;
  passed: boolean;
  /** For a failed one: what it saw (`was false: plan.add = 3`). */
  message?: string;
  /** For one stopped in its worker: `assertion_deadline` (past the policies' deadline) or `assertion_stopped` (the worker died). */
  code?: 'assertion_deadline' | 'assertion_stopped';
}

export interface RunResult {
  name: string;
  command: TestRun['command'];
  passed: boolean;
  assertions: AssertionResult[];
  /** Why the run failed besides its assertions: the configuration, the plan or the apply failed. */
  error?: string;
  durationMs: number;
}

export interface FileResult {
  file: string;
  /** The test file's own problems (errors, then nothing ran) and warnings. */
  diagnostics: Diagnostic[];
  valid: boolean;
  runs: RunResult[];
  durationMs: number;
}

export interface RunFileOptions {
  configDir: string;
  /** The folder paths are shown relative to. */
  cwd: string;
  /** A deployment of the configuration's `deployments:` (`cplane test --all`): its account and its values, under the test file's. */
  deployment?: string;
}

export async function runTestFile(path: string, display: string, options: RunFileOptions): Promise<FileResult> {
  const started = performance.now();
  const read = await readTestFile(path, display);
  if (!read.file) return { file: display, diagnostics: read.diagnostics, valid: false, runs: [], durationMs: performance.now() - started };
  const session = await TestSession.open(read.file, options);
  const runs: RunResult[] = [];
  try {
    for (const run of read.file.runs) runs.push(await session.run(run));
  } finally {
    await session.close();
  }
  return { file: display, diagnostics: read.diagnostics, valid: true, runs, durationMs: performance.now() - started };
}

/** What the runs of one file share: the emulator, the state's folder and key, a client per account, the configuration's parsed files, loaded configurations. */
class TestSession {
  private readonly clients = new Map<string, ApiClient>();
  private readonly states = new Map<string, Promise<StateStore>>();
  private readonly loaded = new Map<string, Promise<{ desired?: DesiredState; diagnostics: Diagnostic[] }>>();
  /** What does not depend on a run's values: the configuration's files parsed once for all the runs. */
  private readonly shared = new SharedLoads();
  private readonly assertions: AssertionChecker;

  private constructor(
    private readonly file: TestFile,
    private readonly options: RunFileOptions,
    private readonly emulator: RunningEmulator,
    private readonly temp: string,
    private readonly stateKey: string,
  ) {
    this.assertions = new AssertionChecker(file.runs.map((run) => run.assertions));
  }

  static async open(file: TestFile, options: RunFileOptions): Promise<TestSession> {
    const temp = await mkdtemp(join(tmpdir(), 'cplane-test-'));
    try {
      return new TestSession(file, options, await startEmulator({ port: 0 }), temp, randomBytes(32).toString('base64'));
    } catch (error) {
      await rm(temp, { recursive: true, force: true });
      throw error;
    }
  }

  async run(run: TestRun): Promise<RunResult> {
    const started = performance.now();
    const result = (fields: Omit<RunResult, 'name' | 'command' | 'durationMs' | 'passed'>): RunResult => ({
      name: run.name,
      command: run.command,
      passed: fields.error === undefined && fields.assertions.every((a) => a.passed),
      ...fields,
      durationMs: performance.now() - started,
    });
    try {
      const { desired, diagnostics } = await this.configuration(run);
      // A variable the configuration does not declare is only a warning for --var; in a test it is a typo that would test the defaults.
      const errors = diagnostics.filter((d) => d.severity === 'error' || d.code === 'undeclared_variable');
      if (!desired || errors.length > 0) {
        return result({
          assertions: [],
          error: `the configuration has ${errors.length} error${errors.length === 1 ? '' : 's'}:\n${errors.map((d) => formatDiagnostic(d, { color: false })).join('\n')}`,
        });
      }
      const account = desired.account ?? DEFAULT_TEST_ACCOUNT;
      if (!UUID.test(account))
        return result({
          assertions: [],
          error: `the account "${account}" is not an account id (a uuid): give one with \`account:\` in the test file.`,
        });
      if (!fixtures.accounts.some((a) => a.id === account)) this.emulator.addAccount(account);
      const { plan, apply } = await this.perform(run, desired, account);
      const facts = planFacts(plan, apply);
      const outcomes = await this.assertions.check(run.assertions, facts);
      const assertions: AssertionResult[] = run.assertions.map((assertion, i) => {
        const outcome = outcomes[i]!;
        return {
          expression: assertion.expression,
          passed: outcome.passed,
          ...(outcome.passed ? {} : { message: outcome.message, ...(outcome.code ? { code: outcome.code } : {}) }),
        };
      });
      // A failed write is said when it fails the run, or when an assertion failed (which it may explain).
      const error =
        unexpectedFailure(plan, apply, run.assertions) ??
        (apply && apply.failed > 0 && assertions.some((a) => !a.passed) ? applyFailures(apply) : undefined);
      return result({ assertions, ...(error ? { error } : {}) });
    } catch (error) {
      return result({ assertions: [], error: error instanceof Error ? error.message : String(error) });
    }
  }

  /** Plans, and for an apply run performs the plan, as the commands do (no prompt, no journal left to resend: the state is the file's own). */
  private async perform(run: TestRun, desired: DesiredState, account: string): Promise<{ plan: Plan; apply?: ApplyOutcome }> {
    const state = await this.state(account);
    const client = this.client(account);
    const plan = await makePlan({ desired, state, client, account, env: run.env });
    if (run.command === 'plan') return { plan };
    if (blockingFindings(plan).length > 0) {
      // Refused, no step is applied: each counts as failed, so `apply.failed == 0` cannot pass a refused apply.
      const refused = plan.steps.filter((s) => s.action !== 'no-op');
      return {
        plan,
        apply: {
          refused: true,
          done: 0,
          failed: refused.length,
          skipped: 0,
          errors: refused.map((s) => `${s.address}: not applied: a mandatory policy refused the apply`),
        },
      };
    }
    if (!hasChanges(plan)) return { plan, apply: { refused: false, done: 0, failed: 0, skipped: 0, errors: [] } };
    const applied = await applyPlan({
      plan,
      state,
      client,
      keyRing: stateKeyRing(state, (source) => resolveSecret(source, run.env), client),
    });
    return {
      plan,
      apply: {
        refused: false,
        done: applied.done.length,
        failed: applied.failed.length,
        skipped: applied.skipped.length,
        errors: applied.failed.map((f) => `${f.address}: ${f.reason}`),
      },
    };
  }

  /** The state of `account`, opened (and locked: nothing else uses it) once for all the file's runs. */
  private state(account: string): Promise<StateStore> {
    let found = this.states.get(account);
    if (!found) {
      found = openState({
        configDir: this.options.configDir,
        account,
        statePath: join(this.temp, `${account}.state.json`),
        env: { CPLANE_STATE_KEY: this.stateKey },
        command: 'cplane test',
        lock: true,
      });
      this.states.set(account, found);
    }
    return found;
  }

  /**
   * The configuration as the run's variables and environment make it, loaded once per distinct pair. The
   * account is the test file's, else the configuration's, else DEFAULT_TEST_ACCOUNT: it is offered as
   * --account would be (filling a required `account` variable), and taken back when the configuration
   * names its own (which --account could only contradict).
   */
  private configuration(run: TestRun): Promise<{ desired?: DesiredState; diagnostics: Diagnostic[] }> {
    const key = JSON.stringify([run.variables, run.env]);
    let found = this.loaded.get(key);
    if (!found) {
      const load = (account: string | undefined) =>
        loadConfiguration(this.options.configDir, {
          env: run.env,
          cwd: this.options.cwd,
          savedVariables: run.variables as DesiredState['variables'],
          savedVariablesOrigin: this.file.display,
          shared: this.shared,
          ...(account ? { account } : {}),
          ...(this.options.deployment ? { deployment: this.options.deployment } : {}),
        });
      found = load(this.file.account ?? DEFAULT_TEST_ACCOUNT).then((first) =>
        !this.file.account && first.diagnostics.some((d) => d.code === 'account_mismatch') ? load(undefined) : first,
      );
      this.loaded.set(key, found);
    }
    return found;
  }

  private client(account: string): ApiClient {
    let client = this.clients.get(account);
    if (!client) {
      client = createClient({ baseUrl: this.emulator.url, token: fixtures.tokens.admin, accountId: account });
      this.clients.set(account, client);
    }
    return client;
  }

  async close(): Promise<void> {
    await this.assertions.close();
    await Promise.allSettled([...this.clients.values()].map((c) => c.close()));
    await Promise.allSettled([...this.states.values()].map(async (state) => (await state).close()));
    await this.emulator.close();
    await rm(this.temp, { recursive: true, force: true });
  }
}

/**
 * A run fails where its command would (a mandatory policy finding, a failed write), unless one of its
 * assertions reads what failed (`policies`, `apply`): then the test is about that, and its assertions decide.
 */
function unexpectedFailure(plan: Plan, apply: ApplyOutcome | undefined, assertions: readonly Assertion[]): string | undefined {
  const read = new Set(assertions.flatMap((a) => namesRead(a)));
  const blocking = blockingFindings(plan);
  if (blocking.length > 0 && !read.has('policies') && !read.has('apply')) {
    return safeLines(
      `refused by policy: ${blocking.length} mandatory finding${blocking.length === 1 ? '' : 's'} (assert on \`policies\` to test them):\n${blocking.map((f) => `  - ${findingLine(f)}`).join('\n')}`,
    );
  }
  if (apply && apply.failed > 0 && !read.has('apply')) return applyFailures(apply, ' (assert on `apply` to test it)');
  return undefined;
}

const applyFailures = (apply: ApplyOutcome, hint = '') =>
  safeLines(
    `the apply failed${hint}: ${apply.failed} step${apply.failed === 1 ? '' : 's'}:\n${apply.errors.map((e) => `  - ${e}`).join('\n')}`,
  );
