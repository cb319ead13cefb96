/**
 * `${var.NAME}` and `${env.NAME}` in strings, and inside a `forEach` entry
 * `${each.key}`, `${each.value}` and `${each.value.FIELD}` (for-each.ts hands
 * the instance in). A string that is exactly one reference takes the value with
 * its type (so a number, a list or a map can come from a variable); otherwise the
 * values are spliced in as text, and a list or a map cannot be. `$${` writes a
 * literal `${`.
 *
 * `${env.NAME}` never reads cplane's own secrets (CPLANE_TOKEN, the state key...)
 * nor a variable the configuration uses as a secret source: an ordinary field is
 * printed in plans, so reading one there would publish the secret.
 */
import { diagnosticAt, type DiagnosticSink } from '../diagnostics.js';
import { positionIn, type SourceFile } from '../files/source-file.js';
import { didYouMean } from '../../text/suggest.js';
import { ownSecretRule } from './own-variables.js';
import type { VariableValue } from './variables.js';

const REFERENCE = /\$\$\{|\$\{([^}]*)\}/g;
const WHOLE_REFERENCE = /^\$\{([^}]*)\}$/;
const VARIABLE = /^\s*(var|env)\.([A-Za-z_][A-Za-z0-9_]*)\s*$/;
/** `each.key`, `each.value`, `each.value.FIELD.FIELD...`. */
const EACH = /^\s*each\.(key|value)((?:\.[A-Za-z_][A-Za-z0-9_-]*)*)\s*$/;

/** The instance a `forEach` entry is being expanded for. */
export interface EachInstance {
  key: string;
  value: unknown;
  /** Its address (KIND.NAME[KEY]): diagnostics name it. */
  address: string;
}

export interface InterpolationScope {
  /** Values of variables that have one. */
  values: Map<string, VariableValue>;
  /** Every declared variable, set or not: an unset one is reported once, at its declaration. */
  declared: Set<string>;
  env: NodeJS.ProcessEnv;
  /** Environment variables the configuration uses as secret sources (`{ env: NAME }`). */
  secretEnv: Set<string>;
  /** Inside a `forEach` entry: the instance `${each.*}` reads. */
  each?: EachInstance;
}

type Resolved = { value: unknown } | { problem: { code: string; summary: string; detail: string } } | { unknown: true };

const isText = (value: unknown) => ['string', 'number', 'boolean'].includes(typeof value);

/** The value of `${each.key}`, `${each.value}` or `${each.value.FIELD}`. */
function resolveEach(match: string, part: string, path: string, each: EachInstance | undefined): Resolved {
  if (!each) {
    return {
      problem: {
        code: 'each_outside_for_each',
        summary: `${match} is used outside a forEach entry`,
        detail: 'each.key and each.value exist only inside a resource entry that has forEach.',
      },
    };
  }
  if (part === 'key') {
    if (path)
      return {
        problem: {
          code: 'unknown_each_field',
          summary: `${match}: each.key is text and has no fields, in ${each.address}`,
          detail: 'Write ${each.key}, or ${each.value.FIELD} for a field of the value.',
        },
      };
    return { value: each.key };
  }
  let value: unknown = each.value;
  let walked = 'each.value';
  for (const field of path.split('.').slice(1)) {
    const isMap = value !== null && typeof value === 'object' && !Array.isArray(value);
    if (!isMap || !Object.hasOwn(value as object, field)) {
      const fields = isMap ? Object.keys(value as object) : [];
      return {
        problem: {
          code: 'unknown_each_field',
          summary: `${match}: ${walked} has no field "${field}" in ${each.address}${didYouMean(field, fields)}`,
          detail: isMap ? `Its fields: ${fields.slice(0, 10).join(', ') || '(none)'}.` : `${walked} is not a map here.`,
        },
      };
    }
    value = (value as Record<string, unknown>)[field];
    walked = `${walked}.${field}`;
  }
  return { value };
}

/** What `${...}` (`match`, its inside `inner`) reads in `scope`: a value, a problem, or unknown (a variable without a value yet). */
function resolveReference(match: string, inner: string, scope: InterpolationScope): Resolved {
  const each = EACH.exec(inner);
  if (each) return resolveEach(match, each[1]!, each[2] ?? '', scope.each);
  const [, kind, name] = VARIABLE.exec(inner) ?? [];
  if (!kind || !name) {
    return {
      problem: {
        code: 'invalid_interpolation',
        summary: `Invalid interpolation "${match}": write \${var.NAME}, \${env.NAME}, or inside forEach \${each.key} or \${each.value}`,
        detail: 'Write $${ for a literal "${".',
      },
    };
  }
  if (kind === 'env') return resolveEnv(match, name, scope);
  if (scope.values.has(name)) return { value: scope.values.get(name) };
  if (!scope.declared.has(name)) {
    return {
      problem: {
        code: 'unresolved_variable',
        summary: `Unknown variable "${name}" in ${match}${didYouMean(name, scope.declared)}`,
        detail: 'Declare it under "variables:" in any file of the configuration.',
      },
    };
  }
  return { unknown: true };
}

/** `${env.NAME}`: its value, unless it is a secret (cplane's own, or a secret source of this configuration) or unset. */
function resolveEnv(match: string, name: string, scope: InterpolationScope): Resolved {
  const rule =
    ownSecretRule(name, scope.env) ?? (scope.secretEnv.has(name) ? `${name} is used as a secret source in this configuration` : undefined);
  if (rule) {
    return {
      problem: {
        code: 'secret_env_interpolated',
        summary: `${match} would put a secret into an ordinary field: ${rule}`,
        detail:
          'Fields that are not write-only are shown in plans and state. Give secrets with a secret source ({ env: NAME } or { file: PATH }) where the field takes one.',
      },
    };
  }
  const value = scope.env[name];
  if (value === undefined)
    return {
      problem: {
        code: 'unresolved_variable',
        summary: `Environment variable "${name}" is not set (used as ${match})`,
        detail: `Set ${name} in the environment, or use a variable with a default.`,
      },
    };
  return { value };
}

/** Interpolates `text`, the value of entry `key` of `container` (whose node keeps its position, for errors). */
function interpolateString(
  text: string,
  container: object,
  key: string | number,
  file: SourceFile,
  scope: InterpolationScope,
  sink: DiagnosticSink,
): unknown {
  const position = positionIn(file, container, key);
  const report = (match: string, code: string, summary: string, detail: string) => {
    const start = position ? file.text.indexOf(match, position.value[0]) : -1;
    const offset = start !== -1 && start < (position?.value[1] ?? 0) ? start : (position?.value[0] ?? 0);
    sink.push(diagnosticAt(file, offset, { code, summary, detail, end: offset + match.length }));
  };
  const whole = WHOLE_REFERENCE.exec(text);
  if (whole) {
    const found = resolveReference(text, whole[1]!, scope);
    if ('value' in found) return structuredCloneIfObject(found.value);
    if ('problem' in found) report(text, found.problem.code, found.problem.summary, found.problem.detail);
    return text;
  }
  return text.replace(REFERENCE, (match, inner: string | undefined) => {
    if (inner === undefined) return '${';
    const found = resolveReference(match, inner, scope);
    if ('problem' in found) report(match, found.problem.code, found.problem.summary, found.problem.detail);
    if (!('value' in found)) return match;
    if (!isText(found.value)) {
      report(
        match,
        'not_text',
        `${match} is ${Array.isArray(found.value) ? 'a list' : found.value === null ? 'null' : 'a map'} and cannot be spliced into text`,
        "A list or a map can only be the whole value: write the reference alone, as the field's entire value.",
      );
      return match;
    }
    return String(found.value);
  });
}

/** Values substituted whole are copied: one variable's map may fill many fields, which later stages change in place. */
function structuredCloneIfObject(value: unknown): unknown {
  return value !== null && typeof value === 'object' ? structuredClone(value) : value;
}

/** Interpolates every string of `container[key]` in place (its nodes keep their positions). */
export function interpolateEntry(
  container: Record<string | number, unknown>,
  key: string | number,
  file: SourceFile,
  scope: InterpolationScope,
  sink: DiagnosticSink,
): void {
  const node = container[key];
  if (typeof node === 'string') {
    if (node.includes('${')) container[key] = interpolateString(node, container, key, file, scope, sink);
  } else if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) interpolateEntry(node as unknown as Record<number, unknown>, i, file, scope, sink);
  } else if (node && typeof node === 'object') {
    for (const inner of Object.keys(node)) interpolateEntry(node as Record<string, unknown>, inner, file, scope, sink);
  }
}

/**
 * Interpolates every string of `value` in place (it is the loader's own copy, and its nodes keep their
 * positions) and returns it; `variables:` itself is left as written.
 */
export function interpolate(value: unknown, file: SourceFile, scope: InterpolationScope, sink: DiagnosticSink): unknown {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const key of Object.keys(value))
      if (key !== 'variables') interpolateEntry(value as Record<string, unknown>, key, file, scope, sink);
  }
  return value;
}
