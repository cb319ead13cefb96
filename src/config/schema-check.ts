/**
 * Validation of one file's value against schema/config.schema.json (ajv,
 * JSON Schema 2020-12, strict mode), and the translation of ajv's errors into
 * diagnostics at the right line, in words a user can act on. The schema is
 * compiled at build time (scripts/compile-schemas.mjs), not on every run.
 */
import type { ErrorObject } from 'ajv';
import validateConfig from '../generated/config-schema.js';
import { diagnosticAt, type DiagnosticSink } from './diagnostics.js';
import { positionIn, type NodePosition, type SourceFile } from './source-file.js';
import { didYouMean } from './suggest.js';
import type { VariableConfig } from './config-file.js';
import type { KindBlock } from './kind-block.js';
import { childAddress, isInstanceAddress, resourceAddress } from '../plan-model/address.js';

type Segment = string | number;

/** Declared variables that have no value (`cplane validate` without --var), with their declared type, if any. */
export type UnsetVariables = Map<string, VariableConfig['type']>;

const UNSET_REFERENCE = /\$\{var\.([A-Za-z_][A-Za-z0-9_]*)\}/g;
const WHOLE_REFERENCE = /^\$\{var\.([A-Za-z_][A-Za-z0-9_]*)\}$/;

/**
 * Whether an error is about a value that an unset variable decides, so nothing can be said about it yet.
 * Interpolation leaves `${var.NAME}` in place when NAME has no value. Spliced into text, the result is a
 * string whatever the value: only a type error stands. Alone, the value takes the variable's type: a type
 * error stands only when the variable declares a type the field does not take.
 */
function undecided(error: ErrorObject, unset: UnsetVariables): boolean {
  const data: unknown = error.data;
  if (typeof data !== 'string') return false;
  const names = [...data.matchAll(UNSET_REFERENCE)].map((m) => m[1]!).filter((name) => unset.has(name));
  if (names.length === 0) return false;
  if (error.keyword !== 'type') return true;
  const whole = WHOLE_REFERENCE.exec(data)?.[1];
  if (whole === undefined || !unset.has(whole)) return false;
  const declared = unset.get(whole);
  if (declared === undefined) return true;
  const expected = [(error.params as { type: string | string[] }).type].flat();
  const jsonType = declared === 'list' ? 'array' : declared === 'map' ? 'object' : declared;
  return expected.includes(jsonType) || (declared === 'integer' && expected.includes('number'));
}

function segmentsOf(instancePath: string, value: unknown): Segment[] {
  if (!instancePath) return [];
  const segments: Segment[] = [];
  let node = value;
  for (const raw of instancePath.slice(1).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const segment = Array.isArray(node) ? Number(part) : part;
    segments.push(segment);
    node = (node as Record<string | number, unknown> | undefined)?.[segment];
  }
  return segments;
}

/** Who owns a path (`record "payments/stripe-key"`) and the field inside it (`secretDueAt`), from the kinds' blocks. */
export function describePath(path: readonly Segment[], kinds: readonly KindBlock[]): { owner: string; field: string } {
  const [top, a, sub, b, ...rest] = path;
  let owner = 'the file';
  let inner: readonly Segment[] = path;
  const block = kinds.find((k) => !k.parent && k.key === top);
  if (block && a !== undefined) {
    const child = kinds.find((k) => k.parent?.kind === block.kind && k.key === sub);
    const address = resourceAddress(block.kind, String(a));
    // An instance of a forEach is named by its address, which says which key it is (KIND.NAME[KEY], e.g. team[search] of the gateways).
    const named = (noun: string, name: string, instance: string) => (isInstanceAddress(instance) ? instance : `${noun} "${name}"`);
    if (child?.single) [owner, inner] = [named(child.noun, String(a), childAddress(address, child.kind)), path.slice(3)];
    else if (child && b !== undefined)
      [owner, inner] = [named(child.noun, `${a}/${b}`, childAddress(address, child.kind, String(b))), rest];
    else [owner, inner] = [named(block.noun, String(a), address), path.slice(2)];
  } else if (top === 'variables' && a !== undefined) [owner, inner] = [`variable "${a}"`, path.slice(2)];
  const field = inner.reduce<string>((acc, s) => (typeof s === 'number' ? `${acc}[${s}]` : acc ? `${acc}.${s}` : s), '');
  return { owner, field };
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a number';
  if (typeof value === 'object') return 'a map';
  return `a ${typeof value}`;
}

const expectedType = (t: string) =>
  ({
    object: 'a map',
    map: 'a map',
    array: 'a list',
    list: 'a list',
    integer: 'an integer',
    number: 'a number',
    string: 'a string',
    boolean: 'true or false',
    null: 'null',
  })[t] ?? t;

/** The node of the file's value at `path` (undefined once the path leaves the value). */
function nodeAt(file: SourceFile, path: readonly Segment[]): unknown {
  let node = file.value;
  for (const segment of path)
    node = node !== null && typeof node === 'object' ? (node as Record<string | number, unknown>)[segment] : undefined;
  return node;
}

/** Positions of the node at `path`, kept on its parent node, or of its nearest ancestor that has one (the whole file for the root). */
function locate(file: SourceFile, path: readonly Segment[]): NodePosition {
  for (let n = path.length; n > 0; n--) {
    const found = positionIn(file, nodeAt(file, path.slice(0, n - 1)), path[n - 1]!);
    if (found) return found;
  }
  return { value: [0, 0] };
}

function translate(
  file: SourceFile,
  kinds: readonly KindBlock[],
  error: ErrorObject,
  errors: ErrorObject[],
  sink: DiagnosticSink,
  unset: UnsetVariables | undefined,
): void {
  const path = segmentsOf(error.instancePath, file.value);
  const { owner, field } = describePath(path, kinds);
  const schema = error.parentSchema as Record<string, unknown> | undefined;
  const at = locate(file, path);
  const here = (code: string, summary: string, detail?: string, onKey = false, redact = false) => {
    const offset = onKey && at.key !== undefined ? at.key : at.value[0];
    sink.push(diagnosticAt(file, offset, { code, summary, detail, end: onKey ? undefined : at.value[1], redact }));
  };
  const name = !field ? owner : owner === 'the file' ? `"${field}"` : `"${field}" in ${owner}`;
  const params = error.params as Record<string, unknown>;
  const isSecretSource = error.schemaPath.startsWith('#/$defs/secretSource/');

  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      const keyPath = [...path, key];
      const valid = Object.keys((schema?.properties as object | undefined) ?? {});
      const { owner: keyOwner } = describePath(keyPath, kinds);
      const target = positionIn(file, nodeAt(file, path), key);
      const summary = `Unknown key "${key}" in ${field ? `"${field}" of ${keyOwner}` : keyOwner}${didYouMean(key, valid)}`;
      sink.push(
        diagnosticAt(file, target?.key ?? at.value[0], {
          code: 'unknown_key',
          summary,
          detail: `Valid keys: ${valid.join(', ')}.`,
          end: (target?.key ?? 0) + key.length,
        }),
      );
      return;
    }
    case 'type':
      if (isSecretSource && typeof error.data !== 'object') {
        here(
          'inline_secret',
          `A secret must not be written inline: ${name} takes a secret source, not a value`,
          'Give where the value comes from instead: { env: NAME }, { file: ./path } or { generate: { length: 32 } }.',
          false,
          true,
        );
        return;
      }
      {
        const expected = [params.type].flat().map(String);
        const variable = typeof error.data === 'string' ? WHOLE_REFERENCE.exec(error.data)?.[1] : undefined;
        if (variable !== undefined && unset?.has(variable)) {
          here(
            'wrong_type',
            `Wrong type for ${name}: expected ${expected.map(expectedType).join(' or ')}, but variable "${variable}" is declared as ${expectedType(unset.get(variable)!)}`,
          );
          return;
        }
        const quoteHint =
          expected.includes('string') && ['number', 'boolean'].includes(typeof error.data)
            ? 'YAML reads this as a number or boolean: quote it to keep it text, e.g. "100.00".'
            : undefined;
        here(
          'wrong_type',
          `Wrong type for ${name}: expected ${expected.map(expectedType).join(' or ')}, got ${typeName(error.data)}`,
          quoteHint,
        );
      }
      return;
    case 'minimum':
    case 'maximum': {
      const min = schema?.minimum;
      const max = schema?.maximum;
      const bound =
        min !== undefined && max !== undefined ? `between ${min} and ${max}` : min !== undefined ? `at least ${min}` : `at most ${max}`;
      here('out_of_range', `${name} must be ${bound}; got ${String(error.data)}`);
      return;
    }
    case 'format':
      if (params.format === 'date-time')
        here(
          'invalid_datetime',
          `${name} is not a valid date-time: "${String(error.data)}"`,
          'Write an ISO 8601 date-time with a time zone, e.g. 2027-01-01T00:00:00Z.',
        );
      else
        here(
          'invalid_url',
          `${name} is not a valid URL: "${String(error.data)}"`,
          'Write an absolute URL, e.g. https://api.example.com/v1.',
        );
      return;
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map(String);
      const got = String(error.data);
      here('invalid_value', `${name} must be one of ${allowed.join(', ')}; got "${got}"${didYouMean(got, allowed)}`);
      return;
    }
    case 'const':
      here(
        'unsupported_version',
        `${name} must be ${JSON.stringify(params.allowedValue)}; got ${JSON.stringify(error.data)}`,
        'This version of cplane reads configuration language version 1.',
      );
      return;
    case 'required':
      here(
        'missing_key',
        `Missing required key "${String(params.missingProperty)}" in ${name}`,
        `Required keys here: ${((schema?.required as string[] | undefined) ?? []).join(', ')}.`,
        true,
      );
      return;
    case 'pattern':
      if (error.propertyName !== undefined) {
        const target = positionIn(file, nodeAt(file, path), error.propertyName);
        const what = path[0] === 'variables' ? 'variable name' : path.at(-1) === 'headers' ? 'header name' : 'name';
        sink.push(
          diagnosticAt(file, target?.key ?? at.value[0], {
            code: 'invalid_name',
            summary: `Invalid ${what} "${error.propertyName}" in ${name}`,
            detail: String((schema?.description as string | undefined) ?? `It must match ${String(params.pattern)}.`),
            end: (target?.key ?? 0) + error.propertyName.length,
          }),
        );
        return;
      }
      // A value in a secret source's `env` may be a pasted secret: never echo it.
      here(
        'invalid_value',
        isSecretSource ? `${name} has an invalid form` : `${name} has an invalid form: "${String(error.data)}"`,
        String((schema?.description as string | undefined) ?? `It must match ${String(params.pattern)}.`),
      );
      return;
    case 'minProperties':
    case 'maxProperties':
      if (isSecretSource) {
        here('invalid_secret_source', `${name} must give exactly one of env, file or generate`);
        return;
      }
      break;
    case 'minLength':
      here('invalid_value', `${name} must not be empty`);
      return;
    case 'maxLength':
      here('invalid_value', `${name} must be at most ${String(params.limit)} characters long`);
      return;
    case 'minItems':
      here('invalid_value', `${name} must have at least ${String(params.limit)} item${params.limit === 1 ? '' : 's'}`);
      return;
    case 'maxItems':
      here('invalid_value', `${name} must have at most ${String(params.limit)} items`);
      return;
    case 'uniqueItems':
      here('invalid_value', `${name} lists the same item twice (items ${String(params.j)} and ${String(params.i)})`);
      return;
    case 'propertyNames':
      // The nested `pattern` error with propertyName already says which name is wrong.
      if (errors.some((e) => e.propertyName !== undefined && e.instancePath === error.instancePath)) return;
      break;
    case 'if':
      // The errors of the branch taken (`then` or `else`, a grant written as a name or as a map) say what is wrong.
      return;
  }
  here('invalid_value', `${name} ${error.message ?? 'is invalid'}`);
}

/** Validates one parsed file; returns whether it is valid. Errors about values that unset variables decide are left out. */
export function checkSchema(file: SourceFile, kinds: readonly KindBlock[], sink: DiagnosticSink, unset?: UnsetVariables): boolean {
  if (validateConfig(file.value)) return true;
  const all = validateConfig.errors ?? [];
  const errors = unset?.size ? all.filter((error) => !undecided(error, unset)) : all;
  for (const error of errors) translate(file, kinds, error, errors, sink, unset);
  return errors.length === 0;
}

/**
 * Diagnostics for the errors of another schema compiled the same way (verbose: `cplane test`'s files), in the
 * same words: paths outside the kinds' blocks read as fields of the file (`"runs[0].command"`).
 */
export function reportSchemaErrors(file: SourceFile, errors: ErrorObject[], sink: DiagnosticSink): void {
  for (const error of errors) translate(file, [], error, errors, sink, undefined);
}
