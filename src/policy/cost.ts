/**
 * The cost bound of a rule, estimated from its parsed CEL before it ever runs (after cel-go's cost
 * estimator, without its size hints): a rule is evaluated once per planned change, and a rule from a pull
 * request must not be able to keep a plan busy. Each node costs one step; a macro (all, exists, exists_one,
 * map, filter) costs its body once per element of the list or map it iterates, so nested macros multiply.
 * The number of elements is read from the rule where it is written out (a list or map literal, a string for
 * split, a list made from those by map, filter or +); anything else (`after.scopes`, a function's result)
 * counts as UNKNOWN_SIZE elements. The estimate bounds what the rule says, not what the data holds: a plan
 * whose lists are longer is stopped by the deadline (sandbox.ts) instead.
 */
import type { ASTNode } from '@marcbachmann/cel-js';

/** The most steps a rule may take for one change. About 0.1 s of evaluation with @marcbachmann/cel-js. */
export const MAX_RULE_COST = 1_000_000;
/** Elements assumed for a list or map whose size the rule does not show (the configuration's lists are short). */
export const UNKNOWN_SIZE = 100;

const MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

/** The most elements a value may have, and the shape of each of them (UNKNOWN when not known). */
interface Shape {
  n: number;
  elem?: Shape;
}

const UNKNOWN: Shape = { n: UNKNOWN_SIZE };
const elemOf = (shape: Shape): Shape => shape.elem ?? UNKNOWN;
const widest = (a: Shape, b: Shape): Shape => ({
  n: Math.max(a.n, b.n),
  ...(a.elem || b.elem ? { elem: widest(elemOf(a), elemOf(b)) } : {}),
});

export interface RuleCost {
  /** Estimated steps for one change. */
  steps: number;
  /** How deep macros nest. */
  depth: number;
  /** The most elements one macro iterates. */
  widest: number;
}

interface Estimate extends RuleCost {
  shape: Shape;
}

const leaf = (shape: Shape): Estimate => ({ steps: 1, depth: 0, widest: 0, shape });

/** One step for the node, plus its operands. */
function combine(parts: Estimate[], shape: Shape): Estimate {
  return {
    steps: 1 + parts.reduce((sum, p) => sum + p.steps, 0),
    depth: Math.max(0, ...parts.map((p) => p.depth)),
    widest: Math.max(0, ...parts.map((p) => p.widest)),
    shape,
  };
}

function estimate(node: ASTNode, scope: ReadonlyMap<string, Shape>): Estimate {
  switch (node.op) {
    case 'value':
      return leaf(typeof node.args === 'string' ? { n: node.args.length } : { n: 1 });
    case 'id':
      return leaf(scope.get(node.args) ?? UNKNOWN);
    case 'list': {
      const parts = node.args.map((n) => estimate(n, scope));
      return combine(parts, { n: parts.length, ...(parts.length ? { elem: parts.map((p) => p.shape).reduce(widest) } : {}) });
    }
    case 'map': {
      const parts = node.args.flatMap(([k, v]) => [estimate(k, scope), estimate(v, scope)]);
      const keys = parts.filter((_, i) => i % 2 === 0).map((p) => p.shape);
      return combine(parts, { n: node.args.length, ...(keys.length ? { elem: keys.reduce(widest) } : {}) });
    }
    case '+': {
      // Joining lists (or strings) copies them: a step per element, so that doubling a list in nested
      // cel.bind() calls cannot build a huge value at the cost of a few steps.
      const [a, b] = node.args.map((n) => estimate(n, scope)) as [Estimate, Estimate];
      const joined = combine([a, b], { n: a.shape.n + b.shape.n, elem: widest(elemOf(a.shape), elemOf(b.shape)) });
      return { ...joined, steps: joined.steps + joined.shape.n };
    }
    case '[]':
    case '[?]': {
      const parts = node.args.map((n) => estimate(n, scope));
      return combine(parts, elemOf(parts[0]!.shape));
    }
    case 'rcall': {
      const [name, receiver, args] = node.args;
      if (MACROS.has(name) && args[0]?.op === 'id') return macro(name, receiver, args[0].args, args.slice(1), scope);
      if (name === 'bind' && receiver.op === 'id' && receiver.args === 'cel' && args.length === 3 && args[0]!.op === 'id') {
        const value = estimate(args[1]!, scope);
        const body = estimate(args[2]!, new Map([...scope, [args[0]!.args, value.shape]]));
        return combine([value, body], body.shape);
      }
      const parts = [receiver, ...args].map((n) => estimate(n, scope));
      // split gives at most one part per character, and one more.
      if (name === 'split') return combine(parts, { n: parts[0]!.shape.n + 1, elem: parts[0]!.shape });
      return combine(parts, parts.map((p) => p.shape).reduce(widest, UNKNOWN));
    }
    default: {
      const parts = operands(node).map((n) => estimate(n, scope));
      return combine(parts, parts.map((p) => p.shape).reduce(widest, UNKNOWN));
    }
  }
}

/** A macro: its body once per element of what it iterates, with the variable bound to an element. */
function macro(name: string, receiver: ASTNode, variable: string, body: ASTNode[], scope: ReadonlyMap<string, Shape>): Estimate {
  const over = estimate(receiver, scope);
  const inner = new Map([...scope, [variable, elemOf(over.shape)]]);
  const parts = body.map((n) => estimate(n, inner));
  const each = 1 + parts.reduce((sum, p) => sum + p.steps, 0);
  const n = over.shape.n;
  const shape = name === 'map' ? { n, elem: parts[parts.length - 1]!.shape } : name === 'filter' ? over.shape : { n: 1 };
  return {
    steps: 1 + over.steps + n * each,
    depth: Math.max(over.depth, 1 + Math.max(0, ...parts.map((p) => p.depth))),
    widest: Math.max(n, over.widest, ...parts.map((p) => p.widest)),
    shape,
  };
}

/** The operand nodes of any other node (selects, calls, operators, the conditional). */
function operands(node: ASTNode): ASTNode[] {
  const found: ASTNode[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === 'object' && 'op' in value) found.push(value as ASTNode);
  };
  visit(node.args);
  return found;
}

export function ruleCost(ast: ASTNode): RuleCost {
  const { steps, depth, widest: most } = estimate(ast, new Map());
  return { steps, depth, widest: most };
}
