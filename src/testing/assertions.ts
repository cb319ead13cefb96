/**
 * A test run's `expect:` assertions: CEL expressions (the library policies use, @marcbachmann/cel-js,
 * loaded on first use, with its default structural limits, the CEL specification's, and the 4,000
 * characters a policy rule may have, from the schema) over what a run made (facts.ts). Each is parsed and
 * type-checked when the file is read, so a typo is a diagnostic at its line before anything runs. A failed
 * assertion says what it saw: for a comparison, the value of each side that is not a literal; for `&&`,
 * the first part that was false.
 */
import type { ASTNode, Environment as CelEnvironment } from '@marcbachmann/cel-js';
import { FACT_NAMES } from './facts.js';

type Evaluate = (variables: Record<string, unknown>) => unknown;

export interface Assertion {
  expression: string;
  evaluate: Evaluate;
  ast: ASTNode;
}

export interface AssertionProblem {
  code: 'assertion_syntax' | 'assertion_type' | 'assertion_not_bool' | 'assertion_too_costly';
  summary: string;
  detail?: string;
}

export type AssertionOutcome = { passed: true } | { passed: false; message: string };

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

export async function compileAssertion(expression: string): Promise<Assertion | { problem: AssertionProblem }> {
  const env = await celEnvironment();
  let parsed: ReturnType<CelEnvironment['parse']>;
  try {
    parsed = env.parse(expression);
  } catch (error) {
    const message = (error as Error).message;
    return { problem: { code: 'assertion_syntax', summary: `The assertion is not valid CEL: ${firstLine(message)}`, detail: rest(message) } };
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
    return { problem: { code: 'assertion_not_bool', summary: `The assertion gives a ${checked.type}, not a bool`, detail: 'An assertion is true when the run passes, e.g. `plan.add == 3`.' } };
  }
  // CEL has no loop but its macros, and a plan may have 10,000 steps: one macro inside another is 10^8
  // evaluations, a third inside them would never end. The library bounds the size of an expression, not its cost.
  if (comprehensionDepth(parsed.ast) > MAX_COMPREHENSION_DEPTH) {
    return {
      problem: {
        code: 'assertion_too_costly',
        summary: `The assertion nests more than ${MAX_COMPREHENSION_DEPTH} of all(), exists(), exists_one(), map() and filter() inside each other`,
        detail: 'Its cost would grow with the power of the plan\'s size. Split it into several assertions.',
      },
    };
  }
  return { expression, evaluate: (variables) => parsed(variables), ast: parsed.ast };
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

/** Whether the assertion holds over `facts`, and if not, what it saw. */
export async function checkAssertion(assertion: Assertion, facts: Record<string, unknown>): Promise<AssertionOutcome> {
  let result: unknown;
  try {
    result = assertion.evaluate(facts);
  } catch (error) {
    return { passed: false, message: `could not be evaluated: ${firstLine(error instanceof Error ? error.message : String(error))}` };
  }
  if (result === true) return { passed: true };
  if (result !== false) return { passed: false, message: `gave ${showValue(result)}, not a bool` };
  const seen = await whatItSaw(assertion.ast, facts);
  return { passed: false, message: seen.length > 0 ? `was false: ${seen.join(', ')}` : 'was false' };
}

const COMPARISONS = new Set(['==', '!=', '<', '<=', '>', '>=', 'in']);

/** For a false assertion, `side = value` for each non-literal side of the comparison that decided it. */
async function whatItSaw(node: ASTNode, facts: Record<string, unknown>): Promise<string[]> {
  const env = await celEnvironment();
  const evaluate = (part: ASTNode): unknown => env.parse(part.input.slice(part.range.start, part.range.end))(facts);
  if (node.op === '&&') {
    for (const part of node.args) {
      try {
        if (evaluate(part) !== false) continue;
        const inner = await whatItSaw(part, facts);
        return inner.length > 0 ? inner : [`${sourceOf(part)} is false`];
      } catch {
        return [];
      }
    }
    return [];
  }
  if (!COMPARISONS.has(node.op)) return [];
  const sides = node.args as [ASTNode, ASTNode];
  const seen: string[] = [];
  for (const side of sides) {
    if (side.op === 'value') continue;
    try {
      seen.push(`${sourceOf(side)} = ${showValue(evaluate(side))}`);
    } catch (error) {
      seen.push(`${sourceOf(side)} fails: ${firstLine(error instanceof Error ? error.message : String(error))}`);
    }
  }
  return seen;
}

const sourceOf = (node: ASTNode) => node.input.slice(node.range.start, node.range.end).trim();

/** A CEL value as a person reads it: ints without `n`, JSON otherwise, cut at 200 characters. */
export function showValue(value: unknown): string {
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? Number(v) : v instanceof Map ? Object.fromEntries(v) : v)) ?? String(value);
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
