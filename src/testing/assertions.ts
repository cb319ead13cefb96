/**
 * A test run's `expect:` assertions: CEL expressions (the library policies use, @marcbachmann/cel-js,
 * loaded on first use, with its default structural limits, the CEL specification's, and the 4,000
 * characters a policy rule may have, from the schema) over what a run made (facts.ts). Each is parsed and
 * type-checked when the file is read, so a typo is a diagnostic at its line before anything runs. A failed
 * assertion says what it saw: for a comparison, the value of each side that is not a literal; for `&&`,
 * the first part that was false.
 *
 * A test file may come with a pull request nobody has reviewed yet, and an expression can cost far more than
 * its size (a regular expression that backtracks), so assertions are evaluated where policies are: in the
 * policies' worker (policy/sandbox.ts), each within the policies' deadline (DEFAULT_TIMEOUT_MS). One that does
 * not finish is stopped and fails (`assertion_deadline`): it never holds the run, and never passes.
 */
import type { ASTNode, Environment as CelEnvironment } from '@marcbachmann/cel-js';
import { DEFAULT_TIMEOUT_MS, Sandbox, type SandboxEnvironment, type ValueResult } from '../policy/index.js';
import { FACT_NAMES } from './facts.js';

export interface Assertion {
  expression: string;
  ast: ASTNode;
  /** The parts a false assertion is explained by (`&&` parts, comparison sides), as text, each checked to compile alone. */
  parts: string[];
}

export interface AssertionProblem {
  code: 'assertion_syntax' | 'assertion_type' | 'assertion_not_bool' | 'assertion_too_costly';
  summary: string;
  detail?: string;
}

export type AssertionOutcome = { passed: true } | { passed: false; message: string; code?: 'assertion_deadline' | 'assertion_stopped' };

/** What the worker compiles assertions in: the facts' names, as the one environment of the main thread. */
const ASSERTION_ENVIRONMENT: SandboxEnvironment = {
  variables: FACT_NAMES.map((name) => [name, 'dyn'] as const),
  options: { unlistedVariablesAreDyn: false },
};

let environment: Promise<CelEnvironment> | undefined;

/** The one environment every assertion is compiled in: an unknown name is a type error, not a runtime surprise. */
function celEnvironment(): Promise<CelEnvironment> {
  environment ??= import('@marcbachmann/cel-js').then(({ Environment }) => {
    let env = new Environment({ unlistedVariablesAreDyn: false });
    for (const name of FACT_NAMES) env = env.registerVariable(name, 'dyn');
    return env;
  });
  return environment;
}

const firstLine = (text: string) => text.split('\n')[0] ?? text;
const rest = (text: string) => text.split('\n').slice(1).join('\n').trim();

/**
 * Compiled assertions by text: a file's runs often repeat one (`plan.add == 3`), and each run compiles its own. A
 * long-lived process (the language server) forgets them all past MAX_COMPILED texts.
 */
const compiledByText = new Map<string, Promise<Assertion | { problem: AssertionProblem }>>();
const MAX_COMPILED = 2000;

export function compileAssertion(expression: string): Promise<Assertion | { problem: AssertionProblem }> {
  let compiled = compiledByText.get(expression);
  if (!compiled) {
    if (compiledByText.size >= MAX_COMPILED) compiledByText.clear();
    compiled = compileText(expression);
    compiledByText.set(expression, compiled);
  }
  return compiled;
}

async function compileText(expression: string): Promise<Assertion | { problem: AssertionProblem }> {
  const env = await celEnvironment();
  let parsed: ReturnType<CelEnvironment['parse']>;
  try {
    parsed = env.parse(expression);
  } catch (error) {
    const message = (error as Error).message;
    return {
      problem: { code: 'assertion_syntax', summary: `The assertion is not valid CEL: ${firstLine(message)}`, detail: rest(message) },
    };
  }
  const checked = parsed.check();
  if (!checked.valid) {
    const message = checked.error?.message ?? 'type error';
    return {
      problem: {
        code: 'assertion_type',
        summary: `The assertion does not type-check: ${firstLine(message)}`,
        detail: `${rest(message)}\nAn assertion sees ${FACT_NAMES.join(', ')} (docs/testing.md).`.trim(),
      },
    };
  }
  if (checked.type !== 'bool' && checked.type !== 'dyn') {
    return {
      problem: {
        code: 'assertion_not_bool',
        summary: `The assertion gives a ${checked.type}, not a bool`,
        detail: 'An assertion is true when the run passes, e.g. `plan.add == 3`.',
      },
    };
  }
  // CEL has no loop but its macros, and a plan may have 10,000 steps: one macro inside another is 10^8
  // evaluations, a third inside them would never end. The library bounds the size of an expression, not its cost.
  if (comprehensionDepth(parsed.ast) > MAX_COMPREHENSION_DEPTH) {
    return {
      problem: {
        code: 'assertion_too_costly',
        summary: `The assertion nests more than ${MAX_COMPREHENSION_DEPTH} of all(), exists(), exists_one(), map() and filter() inside each other`,
        detail: "Its cost would grow with the power of the plan's size. Split it into several assertions.",
      },
    };
  }
  const parts = explainingParts(parsed.ast).filter((part) => {
    try {
      return env.parse(part).check().valid;
    } catch {
      return false;
    }
  });
  return { expression, ast: parsed.ast, parts: [...new Set(parts)] };
}

/** Comprehensions (CEL's macros over lists and maps) one assertion may nest: their cost is the plan's size to this power. */
export const MAX_COMPREHENSION_DEPTH = 2;
const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

/** How deeply comprehensions nest in `node`. */
function comprehensionDepth(value: unknown): number {
  if (Array.isArray(value)) return Math.max(0, ...value.map(comprehensionDepth));
  if (value === null || typeof value !== 'object' || !('op' in value) || !('args' in value)) return 0;
  const node = value as ASTNode;
  const inner = comprehensionDepth(node.args);
  return node.op === 'rcall' && COMPREHENSIONS.has(node.args[0]) ? inner + 1 : inner;
}

/**
 * Whether each assertion holds over a run's facts, evaluated in a worker: each assertion (with the parts that explain
 * it) within DEFAULT_TIMEOUT_MS, after which it is stopped and fails. One worker serves every run of a test file (it
 * compiles all their assertions once; starting one per run cost more than the run's plan): each run hands it its
 * facts, and an assertion that is stopped ends the worker, so the next gets a new one.
 */
export class AssertionChecker {
  /** Each text once: the runs of a file often repeat an assertion or a part (`plan.add`), and the worker compiles every rule. */
  private readonly rules: string[] = [];
  private readonly ruleOf = new Map<string, number>();
  /** Per run's list of assertions: where each assertion's expression and each of its parts are among the rules. */
  private readonly firstRules = new Map<readonly Assertion[], RuleIndices[]>();
  private sandbox: Sandbox | undefined;

  constructor(runs: readonly (readonly Assertion[])[]) {
    for (const assertions of runs) {
      this.firstRules.set(
        assertions,
        assertions.map((a) => ({ expression: this.rule(a.expression), parts: a.parts.map((part) => this.rule(part)) })),
      );
    }
  }

  private rule(text: string): number {
    let index = this.ruleOf.get(text);
    if (index === undefined) {
      index = this.rules.push(text) - 1;
      this.ruleOf.set(text, index);
    }
    return index;
  }

  /** The outcome of each of `assertions` (one run's, as given to the constructor) over `facts`. */
  async check(assertions: readonly Assertion[], facts: Record<string, unknown>): Promise<AssertionOutcome[]> {
    const firstRule = this.firstRules.get(assertions);
    if (!firstRule) throw new Error('these assertions were not given to the checker');
    const outcomes: AssertionOutcome[] = [];
    let stored: Sandbox | undefined;
    for (const [i, assertion] of assertions.entries()) {
      if (!this.sandbox?.alive) this.sandbox = new Sandbox(this.rules, ASSERTION_ENVIRONMENT);
      if (stored !== this.sandbox) {
        await this.sandbox.store([facts]);
        stored = this.sandbox;
      }
      outcomes.push(await checkOne(this.sandbox, assertion, firstRule[i]!));
    }
    return outcomes;
  }

  async close(): Promise<void> {
    await this.sandbox?.close();
  }
}

/** Where an assertion's expression and its parts are among the rules the worker compiled. */
interface RuleIndices {
  expression: number;
  parts: number[];
}

async function checkOne(sandbox: Sandbox, assertion: Assertion, rule: RuleIndices): Promise<AssertionOutcome> {
  const started = performance.now();
  const left = () => Math.max(0, DEFAULT_TIMEOUT_MS - (performance.now() - started));
  const evaluated = await sandbox.values([rule.expression], 0, left());
  if (!evaluated.finished) return stopped(evaluated.reason);
  const [ok, result] = evaluated.results[0]!;
  if (!ok) return { passed: false, message: `could not be evaluated: ${result as string}` };
  if (result === true) return { passed: true };
  if (result !== false) return { passed: false, message: `gave ${showValue(result)}, not a bool` };
  if (assertion.parts.length === 0) return { passed: false, message: 'was false' };
  // What it saw is worked out in the worker too, within what is left of the deadline.
  const parts = await sandbox.values(rule.parts, 0, left());
  if (!parts.finished) return stopped(parts.reason);
  const values = new Map(assertion.parts.map((part, k) => [part, parts.results[k]!]));
  const seen = whatItSaw(assertion.ast, (node) => values.get(textOf(node)));
  return { passed: false, message: seen.length > 0 ? `was false: ${seen.join(', ')}` : 'was false' };
}

const stopped = (reason: string | undefined): AssertionOutcome =>
  reason
    ? { passed: false, code: 'assertion_stopped', message: `was stopped: it ended its evaluator (${reason}), so it fails` }
    : {
        passed: false,
        code: 'assertion_deadline',
        message: `did not finish within ${DEFAULT_TIMEOUT_MS} ms (a policy rule's deadline): it was stopped, so it fails`,
      };

const COMPARISONS = new Set(['==', '!=', '<', '<=', '>', '>=', 'in']);

const textOf = (node: ASTNode) => node.input.slice(node.range.start, node.range.end);

/** The parts `whatItSaw` may read: each part of an `&&` (and its own parts), and each non-literal side of a comparison. */
function explainingParts(node: ASTNode): string[] {
  if (node.op === '&&') return node.args.flatMap((part: ASTNode) => [textOf(part), ...explainingParts(part)]);
  if (!COMPARISONS.has(node.op)) return [];
  return (node.args as ASTNode[]).filter((side) => side.op !== 'value').map(textOf);
}

/** For a false assertion, `side = value` for each non-literal side of the comparison that decided it. */
function whatItSaw(node: ASTNode, value: (part: ASTNode) => ValueResult | undefined): string[] {
  if (node.op === '&&') {
    for (const part of node.args as ASTNode[]) {
      const result = value(part);
      if (!result || !result[0]) return [];
      if (result[1] !== false) continue;
      const inner = whatItSaw(part, value);
      return inner.length > 0 ? inner : [`${sourceOf(part)} is false`];
    }
    return [];
  }
  if (!COMPARISONS.has(node.op)) return [];
  const seen: string[] = [];
  for (const side of node.args as [ASTNode, ASTNode]) {
    if (side.op === 'value') continue;
    const result = value(side);
    if (!result) continue;
    seen.push(result[0] ? `${sourceOf(side)} = ${showValue(result[1])}` : `${sourceOf(side)} fails: ${result[1] as string}`);
  }
  return seen;
}

const sourceOf = (node: ASTNode) => node.input.slice(node.range.start, node.range.end).trim();

/** A CEL value as a person reads it: ints without `n`, JSON otherwise, cut at 200 characters. */
export function showValue(value: unknown): string {
  const text =
    JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? Number(v) : v instanceof Map ? Object.fromEntries(v) : v)) ??
    String(value);
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}

/** The variables an assertion names (`plan`, `policies`...), from its syntax tree. */
export function namesRead(assertion: Assertion): string[] {
  const names: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === 'object' && 'op' in value && 'args' in value) {
      const node = value as ASTNode;
      if (node.op === 'id') names.push(node.args);
      else walk(node.args);
    }
  };
  walk(assertion.ast);
  return names;
}
