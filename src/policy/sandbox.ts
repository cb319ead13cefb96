/**
 * Where rules run: a worker thread that can be stopped. A rule is bounded before it runs (cost.ts), but the
 * bound is an estimate (a list longer than assumed, a regular expression that backtracks), so every rule also
 * has a deadline, and only a separate thread can be stopped in the middle of a JavaScript loop or a regular
 * expression: `terminate()` ends the thread wherever it is. The worker also has a memory limit, so a rule that
 * builds huge values ends the worker, never the process (a long-lived `cplane mcp` included).
 *
 * The worker's code is a string (`eval: true`), not a module file: the same code then runs from src/ in the
 * tests, from dist/ and from the bundle, and it imports the CEL library by the path Node resolves for it here.
 * It compiles the rules itself, as compile.ts did (the same variables, from RULE_VARIABLES), and evaluates
 * one policy over the changes it is given at a time, writing the index of the change it is on into shared
 * memory, so that a stopped rule is reported at that change. Starting it costs about 0.1 s (docs/policies.md),
 * which a plan spends while its refresh requests are in flight. `cplane test` evaluates its assertions here too
 * (testing/assertions.ts), in an environment of their own names, asking for each expression's value (`values`).
 */
import { Worker } from 'node:worker_threads';
import { celModuleUrl } from './cel-module.js';
import { ENVIRONMENT_OPTIONS, RULE_VARIABLES } from './rule-variables.js';

/** What one change's evaluation was when not a pass: false, or an error (thrown, or not a bool) with its first line. */
export type Outcome = [index: number, outcome: 'violated'] | [index: number, outcome: 'error', message: string];

/** How one policy's run over its changes ended. */
export type RunResult =
  | { finished: true; outcomes: Outcome[] }
  /** Stopped at the deadline (or the worker died: `reason`), at change `at` of the list it was given. */
  | { finished: false; at: number; reason?: string };

const WORKER_SOURCE = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { celUrl, options, variables, rules, progress } = workerData;
const at = new Int32Array(progress);
const firstLine = (text) => String(text).split('\\n')[0];
import(celUrl).then(({ Environment }) => {
  let env = new Environment(options);
  for (const [name, type] of variables) env = env.registerVariable(name, type);
  const compiled = rules.map((rule) => {
    const parsed = env.parse(rule);
    parsed.check();
    return parsed;
  });
  let changes = [];
  parentPort.on('message', (message) => {
    if (message.changes) {
      changes = message.changes;
      parentPort.postMessage({ stored: true });
      return;
    }
    if (message.values) {
      // Each expression's value itself (cplane test's assertions and what a false one saw), or its error.
      const results = message.values.map((rule) => {
        Atomics.store(at, 0, 0);
        try {
          const value = compiled[rule](changes[message.change]);
          try {
            return [true, structuredClone(value)];
          } catch {
            return [true, String(value)];
          }
        } catch (error) {
          return [false, firstLine(error instanceof Error ? error.message : error)];
        }
      });
      parentPort.postMessage({ results });
      return;
    }
    const evaluate = compiled[message.policy];
    const outcomes = [];
    message.indices.forEach((change, i) => {
      Atomics.store(at, 0, i);
      try {
        const result = evaluate(changes[change]);
        if (result === false) outcomes.push([i, 'violated']);
        else if (result !== true) outcomes.push([i, 'error', 'it gave ' + (typeof result === 'bigint' ? 'an int' : typeof result) + ', not a bool']);
      } catch (error) {
        outcomes.push([i, 'error', firstLine(error instanceof Error ? error.message : error)]);
      }
    });
    parentPort.postMessage({ outcomes });
  });
  parentPort.postMessage({ ready: true });
});
`;

/** The most memory the worker's heap may take; a rule that needs more ends the worker (an error of that rule). */
const WORKER_HEAP_MB = 256;

let celUrl: string | undefined;

/** An expression's value, or the first line of the error it threw. */
export type ValueResult = [ok: true, value: unknown] | [ok: false, message: string];

type Message = { ready: true } | { stored: true } | { outcomes: Outcome[] } | { results: ValueResult[] };

/** The names an expression may read and the CEL environment's options: the policies' (RULE_VARIABLES) unless given. */
export interface SandboxEnvironment {
  variables: readonly (readonly [name: string, type: string])[];
  options: Record<string, unknown>;
}

const POLICY_ENVIRONMENT: SandboxEnvironment = { variables: RULE_VARIABLES, options: ENVIRONMENT_OPTIONS };

export class Sandbox {
  private readonly worker: Worker;
  private readonly at = new Int32Array(new SharedArrayBuffer(4));
  /** The next message from the worker, or its death. */
  private waiting: { resolve: (m: Message) => void; reject: (e: Error) => void } | undefined;
  private died: Error | undefined;
  /** Set by close(): the worker is being stopped, and its exit is awaited. */
  private stopping = false;
  private readonly ready: Promise<Message>;

  /** Starts a worker that compiles `rules` (already compiled once in the main thread, so they compile) in `environment`. */
  constructor(rules: readonly string[], environment: SandboxEnvironment = POLICY_ENVIRONMENT) {
    celUrl ??= celModuleUrl();
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { celUrl, options: environment.options, variables: environment.variables, rules, progress: this.at.buffer },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    this.worker.on('message', (message: Message) => this.settle((w) => w.resolve(message)));
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`the policy worker exited (${code})`)));
    this.ready = this.next();
    this.ready.catch(() => undefined);
  }

  private settle(action: (w: NonNullable<Sandbox['waiting']>) => void): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    // An idle worker never keeps the process alive (a plan that fails before its policies are checked);
    // one that is being waited for does, or Node would exit with the answer still to come. So does one being
    // stopped: close() awaits its exit, and a message already on its way (`ready`, when the plan needed no rule)
    // must not unref it meanwhile, or Node ends the process with the plan unprinted and exit code 0.
    if (!this.stopping) this.worker.unref();
    if (waiting) action(waiting);
  }

  private fail(error: Error): void {
    this.died ??= error;
    this.settle((w) => w.reject(error));
  }

  private next(): Promise<Message> {
    if (this.died) return Promise.reject(this.died);
    this.worker.ref();
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  /** Hands the worker every change's variables once (CEL values: ints are bigints); policies then name changes by index. */
  async store(changes: readonly Record<string, unknown>[]): Promise<void> {
    await this.ready;
    const stored = this.next();
    this.worker.postMessage({ changes });
    await stored;
  }

  /**
   * Runs policy number `policy` (in the order of the rules given) over the changes `indices`, for at most
   * `deadlineMs` from now. A run stopped at its deadline, or ended by the worker's death, ends this sandbox.
   */
  async run(policy: number, indices: readonly number[], deadlineMs: number): Promise<RunResult> {
    const answer = await this.ask({ policy, indices }, deadlineMs);
    if (!answer.finished) return answer;
    if (!('outcomes' in answer.message)) throw new Error('the policy worker answered out of turn');
    return { finished: true, outcomes: answer.message.outcomes };
  }

  /**
   * The values of the expressions `rules` (by their place in the rules given) over stored change `change`, all
   * within `deadlineMs` from now; stopped at the deadline (or by the worker's death) as `run` is.
   */
  async values(
    rules: readonly number[],
    change: number,
    deadlineMs: number,
  ): Promise<{ finished: true; results: ValueResult[] } | { finished: false; reason?: string }> {
    const answer = await this.ask({ values: rules, change }, deadlineMs);
    if (!answer.finished) return answer;
    if (!('results' in answer.message)) throw new Error('the policy worker answered out of turn');
    return { finished: true, results: answer.message.results };
  }

  /** Sends `message` and waits for the answer for at most `deadlineMs`; a run stopped there, or ended by the worker's death, ends this sandbox. */
  private async ask(
    message: object,
    deadlineMs: number,
  ): Promise<{ finished: true; message: Message } | { finished: false; at: number; reason?: string }> {
    Atomics.store(this.at, 0, 0);
    const answer = this.next();
    this.worker.postMessage(message);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'deadline'>((resolve) => (timer = setTimeout(() => resolve('deadline'), deadlineMs)));
    try {
      const first = await Promise.race([answer, deadline]);
      if (first === 'deadline') {
        answer.catch(() => undefined);
        const at = Atomics.load(this.at, 0);
        await this.close();
        return { finished: false, at };
      }
      return { finished: true, message: first };
    } catch (error) {
      // The worker died under this rule: out of memory, or a crash. The rule fails, not the plan.
      const at = Atomics.load(this.at, 0);
      await this.close();
      return { finished: false, at, reason: (error as Error).message };
    } finally {
      clearTimeout(timer);
    }
  }

  get alive(): boolean {
    return this.died === undefined;
  }

  async close(): Promise<void> {
    this.stopping = true;
    this.died ??= new Error('the policy worker was stopped');
    await this.worker.terminate();
  }
}
