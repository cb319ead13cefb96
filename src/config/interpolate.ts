/**
 * `${var.NAME}` and `${env.NAME}` in strings. A string that is exactly one
 * `${var.NAME}` takes the variable's value with its type (so a number can come
 * from a variable); otherwise the values are spliced in as text. `$${` writes a
 * literal `${`.
 *
 * `${env.NAME}` never reads cplane's own secrets (CPLANE_TOKEN, the state key...)
 * nor a variable the configuration uses as a secret source: an ordinary field is
 * printed in plans, so reading one there would publish the secret.
 */
import { diagnosticAt, type DiagnosticSink } from './diagnostics.js';
import { positionIn, type SourceFile } from './source-file.js';
import { didYouMean } from './suggest.js';
import { ownSecretRule } from './own-variables.js';
import type { VariableValue } from './variables.js';

const REFERENCE = /\$\$\{|\$\{([^}]*)\}/g;
const WHOLE_VARIABLE = /^\$\{var\.([A-Za-z_][A-Za-z0-9_]*)\}$/;

export interface InterpolationScope {
  /** Values of variables that have one. */
  values: Map<string, VariableValue>;
  /** Every declared variable, set or not: an unset one is reported once, at its declaration. */
  declared: Set<string>;
  env: NodeJS.ProcessEnv;
  /** Environment variables the configuration uses as secret sources (`{ env: NAME }`). */
  secretEnv: Set<string>;
}

/** Interpolates `text`, the value of entry `key` of `container` (whose node keeps its position, for errors). */
function interpolateString(text: string, container: object, key: string | number, file: SourceFile, scope: InterpolationScope, sink: DiagnosticSink): unknown {
  const whole = WHOLE_VARIABLE.exec(text);
  if (whole && scope.values.has(whole[1]!)) return scope.values.get(whole[1]!);
  const position = positionIn(file, container, key);
  const report = (match: string, code: string, summary: string, detail: string) => {
    const start = position ? file.text.indexOf(match, position.value[0]) : -1;
    const offset = start !== -1 && start < (position?.value[1] ?? 0) ? start : position?.value[0] ?? 0;
    sink.push(diagnosticAt(file, offset, { code, summary, detail, end: offset + match.length }));
  };
  return text.replace(REFERENCE, (match, inner: string | undefined) => {
    if (inner === undefined) return '${';
    const [, kind, name] = /^\s*(var|env)\.([A-Za-z_][A-Za-z0-9_]*)\s*$/.exec(inner) ?? [];
    if (!kind || !name) {
      report(match, 'invalid_interpolation', `Invalid interpolation "${match}": write \${var.NAME} or \${env.NAME}`, 'Write $${ for a literal "${".');
      return match;
    }
    if (kind === 'env') {
      const rule = ownSecretRule(name, scope.env) ?? (scope.secretEnv.has(name) ? `${name} is used as a secret source in this configuration` : undefined);
      if (rule) {
        report(match, 'secret_env_interpolated', `${match} would put a secret into an ordinary field: ${rule}`,
          'Fields that are not write-only are shown in plans and state. Give secrets with a secret source ({ env: NAME } or { file: PATH }) where the field takes one.');
        return match;
      }
      const value = scope.env[name];
      if (value === undefined) {
        report(match, 'unresolved_variable', `Environment variable "${name}" is not set (used as ${match})`, `Set ${name} in the environment, or use a variable with a default.`);
        return match;
      }
      return value;
    }
    const value = scope.values.get(name);
    if (value === undefined) {
      if (!scope.declared.has(name)) {
        report(match, 'unresolved_variable', `Unknown variable "${name}" in ${match}${didYouMean(name, scope.declared)}`, 'Declare it under "variables:" in any file of the configuration.');
      }
      return match;
    }
    return String(value);
  });
}

/**
 * Interpolates every string of `value` in place (it is the loader's own copy, and its nodes keep their
 * positions) and returns it; `variables:` itself is left as written.
 */
export function interpolate(value: unknown, file: SourceFile, scope: InterpolationScope, sink: DiagnosticSink): unknown {
  const walk = (container: Record<string | number, unknown>, key: string | number): void => {
    const node = container[key];
    if (typeof node === 'string') {
      if (node.includes('${')) container[key] = interpolateString(node, container, key, file, scope, sink);
    } else if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) walk(node as unknown as Record<number, unknown>, i);
    } else if (node && typeof node === 'object') {
      for (const inner of Object.keys(node)) walk(node as Record<string, unknown>, inner);
    }
  };
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const key of Object.keys(value)) if (key !== 'variables') walk(value as Record<string, unknown>, key);
  }
  return value;
}
