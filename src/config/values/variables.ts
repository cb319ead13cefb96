/**
 * Variable values in Terraform's order: declared defaults, then
 * `CPLANE_VAR_<name>` from the environment, then `--var-file` (YAML) and
 * `--var name=value` in command-line order; a later source wins. A declared
 * `type` converts text values (from --var and the environment) and checks the others;
 * `list` and `map` read text values as JSON (var files and defaults are YAML already).
 */
import { relative, resolve } from 'node:path';
import { diagnosticAt, type DiagnosticSink } from '../diagnostics.js';
import { offsetIn, positionIn, readSourceFile, type SourceFile } from '../files/source-file.js';
import { didYouMean } from '../../text/suggest.js';
import { isFillIn } from '../blocks/deployments.js';
import type { VariableConfig } from '../files/config-file.js';

import type { VariableValue } from '../../plan-model/plan.js';

export type { VariableValue };

export interface VariableDeclaration {
  name: string;
  config: VariableConfig;
  file: SourceFile;
}

/**
 * One `--var name=value` or `--var-file path`, kept in command-line order; or the `variables:` of a
 * deployment (config/blocks/deployments.ts): values as YAML typed them, reported at their line when wrong.
 */
export type VariableArgument =
  | { name: string; value: string }
  /** `fromConfiguration`: a deployment's varFiles entry (a pull request may write it): a link there is refused. */
  | { file: string; fromConfiguration?: boolean }
  | { values: Record<string, unknown>; origin: string; file?: SourceFile; deployment?: string };

export interface VariableInputs {
  variables?: VariableArgument[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Values recorded in a saved plan (or a module call's inputs): they win over every other source. */
  saved?: Record<string, VariableValue>;
  /** Where `saved` comes from, in words: "the saved plan" unless given ("input of module.payments"). */
  savedOrigin?: string;
  /** A variable without a value is left unknown instead of being an error (`cplane validate`). */
  allowUnset?: boolean;
}

interface Given {
  value: unknown;
  /** Where the value was given, in words. */
  origin: string;
  file?: SourceFile;
  offset?: number;
}

function convert(value: unknown, type: VariableConfig['type']): VariableValue | undefined {
  switch (type) {
    case 'integer':
      if (typeof value === 'number' && Number.isInteger(value)) return value;
      return typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : undefined;
    case 'number':
      if (typeof value === 'number') return value;
      return typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : undefined;
    case 'boolean':
      if (typeof value === 'boolean') return value;
      return value === 'true' ? true : value === 'false' ? false : undefined;
    case 'string':
      return ['string', 'number', 'boolean'].includes(typeof value) ? String(value) : undefined;
    case 'list':
    case 'map': {
      const parsed = typeof value === 'string' ? parseJson(value) : value;
      const isList = Array.isArray(parsed);
      const isMap = parsed !== null && typeof parsed === 'object' && !isList;
      return (type === 'list' ? isList : isMap) ? (parsed as VariableValue) : undefined;
    }
    default:
      return ['string', 'number', 'boolean'].includes(typeof value) ? (value as VariableValue) : undefined;
  }
}

/** A given value as an error shows it: JSON, cut short (a map given by mistake may be long). */
function shortJson(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** How an error names the values a type takes. */
function typeWords(type: VariableConfig['type']): string {
  switch (type) {
    case 'integer':
      return 'an integer';
    case 'boolean':
      return 'true or false';
    case 'list':
      return 'a list (in --var and CPLANE_VAR_*, as JSON: ["a","b"])';
    case 'map':
      return 'a map (in --var and CPLANE_VAR_*, as JSON: {"key":"value"})';
    case undefined:
      return 'a string, number or boolean (declare `type: list` or `type: map` for a list or a map)';
    default:
      return `a ${type}`;
  }
}

async function readVarFile(
  path: string,
  fromConfiguration: boolean,
  inputs: VariableInputs,
  sink: DiagnosticSink,
): Promise<[string, Given][]> {
  const absolute = resolve(inputs.cwd, path);
  const display = relative(inputs.cwd, absolute).startsWith('..') ? absolute : relative(inputs.cwd, absolute);
  let file: SourceFile | undefined;
  try {
    // A deployment's var file was checked to be inside the bounds (deployments.ts); opened once without following a
    // link, a link put there since the check (a swap) is refused rather than read.
    file = await readSourceFile(absolute, display, sink, { noFollow: fromConfiguration });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    sink.push(
      code === 'ELOOP' && fromConfiguration
        ? {
            severity: 'error',
            code: 'var_file_link',
            summary: `Variable file ${display} is a symbolic link: a deployment's var file is read only as a plain file`,
            detail: 'Put the file itself at this path, inside the configuration folder or its Git work tree.',
          }
        : { severity: 'error', code: 'var_file_unreadable', summary: `Cannot read variable file ${display}: ${code ?? String(error)}` },
    );
    return [];
  }
  if (!file) return [];
  const value = file.value ?? {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    sink.push(diagnosticAt(file, 0, { code: 'wrong_type', summary: `Variable file ${display} must be a map of variable names to values` }));
    return [];
  }
  return Object.entries(value).map(([name, v]) => [
    name,
    { value: v, origin: `--var-file ${display}`, file, offset: positionIn(file!, value, name)?.value[0] },
  ]);
}

export async function resolveVariables(
  declarations: Map<string, VariableDeclaration>,
  inputs: VariableInputs,
  sink: DiagnosticSink,
): Promise<Map<string, VariableValue>> {
  const given = await givenValues(declarations, inputs, sink);
  const values = new Map<string, VariableValue>();
  // A deployment's placeholder already is an error at its place (refuseFillIns): its variable is not also "unset".
  const fillIns = new Set(
    inputs.variables?.flatMap((a) =>
      'deployment' in a && a.deployment !== undefined ? Object.keys(a.values).filter((n) => isFillIn(a.values[n])) : [],
    ),
  );
  const deployment = inputs.variables?.flatMap((a) => ('deployment' in a && a.deployment !== undefined ? [a.deployment] : []))[0];
  for (const [name, declaration] of declarations) {
    const found =
      given.get(name) ??
      (declaration.config.default !== undefined ? { value: declaration.config.default, origin: 'its default' } : undefined);
    const declaredAt = offsetIn(declaration.file, (declaration.file.value as Record<string, unknown>).variables, name);
    if (!found) {
      if (inputs.allowUnset || fillIns.has(name)) continue;
      sink.push(
        diagnosticAt(declaration.file, declaredAt, {
          code: 'variable_unset',
          summary: `Variable "${name}" is required but has no value`,
          // A deployment's values are the configuration's own: the place to give it is the deployment's entry.
          detail:
            deployment !== undefined
              ? `Give it in deployments.${deployment}.variables (${name}: VALUE), or in one of the deployment's varFiles.`
              : `Set it with --var ${name}=VALUE, in a --var-file, or with the environment variable CPLANE_VAR_${name}.`,
          end: declaredAt + name.length,
        }),
      );
      continue;
    }
    const converted = convert(found.value, declaration.config.type);
    if (converted === undefined) {
      const problem = {
        code: 'invalid_variable_value',
        summary: `Variable "${name}" must be ${typeWords(declaration.config.type)}; ${found.origin} gives ${shortJson(found.value)}`,
      };
      sink.push(
        found.file && found.offset !== undefined
          ? diagnosticAt(found.file, found.offset, problem)
          : diagnosticAt(declaration.file, declaredAt, problem),
      );
      continue;
    }
    values.set(name, converted);
  }
  return values;
}

/** The values given for the declared variables, the later source winning: CPLANE_VAR_*, the arguments in order, a saved plan's. */
async function givenValues(
  declarations: Map<string, VariableDeclaration>,
  inputs: VariableInputs,
  sink: DiagnosticSink,
): Promise<Map<string, Given>> {
  const given = new Map<string, Given>();
  const offer = (name: string, value: Given, warnUnknown: boolean) => {
    if (!declarations.has(name)) {
      if (warnUnknown) {
        const warning = {
          code: 'undeclared_variable',
          summary: `Variable "${name}" given by ${value.origin} is not declared${didYouMean(name, declarations.keys())}`,
          severity: 'warning' as const,
        };
        sink.push(value.file && value.offset !== undefined ? diagnosticAt(value.file, value.offset, warning) : warning);
      }
      return;
    }
    given.set(name, value);
  };
  for (const [key, value] of Object.entries(inputs.env)) {
    if (key.startsWith('CPLANE_VAR_') && value !== undefined)
      offer(key.slice('CPLANE_VAR_'.length), { value, origin: `environment variable ${key}` }, false);
  }
  for (const argument of inputs.variables ?? []) {
    if ('values' in argument) {
      const { file } = argument;
      for (const [name, value] of Object.entries(argument.values)) {
        // A deployment's placeholder is its own error (refuseFillIns): the variable has no value, not that text.
        if (argument.deployment !== undefined && isFillIn(value)) continue;
        offer(
          name,
          { value, origin: argument.origin, ...(file ? { file, offset: positionIn(file, argument.values, name)?.value[0] } : {}) },
          true,
        );
      }
    } else if ('file' in argument) {
      for (const [name, value] of await readVarFile(argument.file, argument.fromConfiguration === true, inputs, sink))
        offer(name, value, true);
    } else {
      offer(argument.name, { value: argument.value, origin: `--var ${argument.name}=...` }, true);
    }
  }
  for (const [name, value] of Object.entries(inputs.saved ?? {}))
    offer(name, { value, origin: inputs.savedOrigin ?? 'the saved plan' }, true);

  return given;
}
