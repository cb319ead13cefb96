/**
 * Validation of one file's value against schema/config.schema.json (ajv,
 * JSON Schema 2020-12, strict mode), and the translation of ajv's errors into
 * diagnostics at the right line, in words a user can act on. The schema is
 * compiled at build time (scripts/compile-schemas.mjs), not on every run.
 */
import type { ErrorObject } from 'ajv';
import validateConfig from '../../generated/config-schema.js';
import { diagnosticAt, type DiagnosticSink } from '../diagnostics.js';
import { positionIn, type NodePosition, type SourceFile } from './source-file.js';
import { didYouMean } from '../../text/suggest.js';
import type { VariableConfig } from './config-file.js';
import type { KindBlock } from '../blocks/kind-block.js';
import { childAddress, isInstanceAddress, resourceAddress } from '../../plan-model/address.js';

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

/** One error of the schema, with what every translation of it uses. */
interface SchemaError {
  file: SourceFile;
  kinds: readonly KindBlock[];
  error: ErrorObject;
  errors: ErrorObject[];
  sink: DiagnosticSink;
  unset: UnsetVariables | undefined;
  path: Segment[];
  field: string | undefined;
  schema: Record<string, unknown> | undefined;
  at: NodePosition;
  /** What the error is about, in words (`"slug" in gateway "prod"`). */
  name: string;
  params: Record<string, unknown>;
  isSecretSource: boolean;
  /** Says the problem at the node (or, `onKey`, at its key). */
  here: (code: string, summary: string, detail?: string, onKey?: boolean, redact?: boolean) => void;
}

/** A diagnostic in words a person can act on, for one error of the schema; a keyword without its own words says ajv's message. */
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
  const at = locate(file, path);
  const here = (code: string, summary: string, detail?: string, onKey = false, redact = false) => {
    const offset = onKey && at.key !== undefined ? at.key : at.value[0];
    sink.push(diagnosticAt(file, offset, { code, summary, detail, end: onKey ? undefined : at.value[1], redact }));
  };
  const c: SchemaError = {
    file,
    kinds,
    error,
    errors,
    sink,
    unset,
    path,
    field,
    schema: error.parentSchema as Record<string, unknown> | undefined,
    at,
    name: !field ? owner : owner === 'the file' ? `"${field}"` : `"${field}" in ${owner}`,
    params: error.params as Record<string, unknown>,
    isSecretSource: error.schemaPath.startsWith('#/$defs/secretSource/'),
    here,
  };
  const said =
    error.keyword === 'additionalProperties'
      ? unknownKey(c)
      : error.keyword === 'type'
        ? wrongType(c)
        : error.keyword === 'pattern'
          ? wrongPattern(c)
          : (wrongValue(c) ?? wrongSize(c));
  if (!said) here('invalid_value', `${c.name} ${error.message ?? 'is invalid'}`);
}

/** A key the schema does not know, with the keys it does. */
function unknownKey(c: SchemaError): boolean {
  const key = String(c.params.additionalProperty);
  const keyPath = [...c.path, key];
  const valid = Object.keys((c.schema?.properties as object | undefined) ?? {});
  const { owner: keyOwner } = describePath(keyPath, c.kinds);
  const target = positionIn(c.file, nodeAt(c.file, c.path), key);
  const summary = `Unknown key "${key}" in ${c.field ? `"${c.field}" of ${keyOwner}` : keyOwner}${didYouMean(key, valid)}`;
  c.sink.push(
    diagnosticAt(c.file, target?.key ?? c.at.value[0], {
      code: 'unknown_key',
      summary,
      detail: `Valid keys: ${valid.join(', ')}.`,
      end: (target?.key ?? 0) + key.length,
    }),
  );
  return true;
}

/** A value of the wrong type: a secret written inline, a variable declared with another type, or a value YAML did not read as text. */
function wrongType(c: SchemaError): boolean {
  if (c.isSecretSource && typeof c.error.data !== 'object') {
    c.here(
      'inline_secret',
      `A secret must not be written inline: ${c.name} takes a secret source, not a value`,
      'Give where the value comes from instead: { env: NAME }, { file: ./path } or { generate: { length: 32 } }.',
      false,
      true,
    );
    return true;
  }
  {
    const expected = [c.params.type].flat().map(String);
    const variable = typeof c.error.data === 'string' ? WHOLE_REFERENCE.exec(c.error.data)?.[1] : undefined;
    if (variable !== undefined && c.unset?.has(variable)) {
      c.here(
        'wrong_type',
        `Wrong type for ${c.name}: expected ${expected.map(expectedType).join(' or ')}, but variable "${variable}" is declared as ${expectedType(c.unset.get(variable)!)}`,
      );
      return true;
    }
    const quoteHint =
      expected.includes('string') && ['number', 'boolean'].includes(typeof c.error.data)
        ? 'YAML reads this as a number or boolean: quote it to keep it text, e.g. "100.00".'
        : undefined;
    c.here(
      'wrong_type',
      `Wrong type for ${c.name}: expected ${expected.map(expectedType).join(' or ')}, got ${typeName(c.error.data)}`,
      quoteHint,
    );
  }
  return true;
}

/** A name or a value not of the form its field takes. */
function wrongPattern(c: SchemaError): boolean {
  if (c.error.propertyName !== undefined) {
    const target = positionIn(c.file, nodeAt(c.file, c.path), c.error.propertyName);
    const what = c.path[0] === 'variables' ? 'variable name' : c.path.at(-1) === 'headers' ? 'header name' : 'name';
    c.sink.push(
      diagnosticAt(c.file, target?.key ?? c.at.value[0], {
        code: 'invalid_name',
        summary: `Invalid ${what} "${c.error.propertyName}" in ${c.name}`,
        detail: String((c.schema?.description as string | undefined) ?? `It must match ${String(c.params.pattern)}.`),
        end: (target?.key ?? 0) + c.error.propertyName.length,
      }),
    );
    return true;
  }
  // A value in a secret source's `env` may be a pasted secret: never echo it.
  c.here(
    'invalid_value',
    c.isSecretSource ? `${c.name} has an invalid form` : `${c.name} has an invalid form: "${String(c.error.data)}"`,
    String((c.schema?.description as string | undefined) ?? `It must match ${String(c.params.pattern)}.`),
  );
  return true;
}

/** A value out of its range, format or set, or a required key missing; undefined for another keyword. */
function wrongValue(c: SchemaError): true | undefined {
  switch (c.error.keyword) {
    case 'minimum':
    case 'maximum': {
      const min = c.schema?.minimum;
      const max = c.schema?.maximum;
      const bound =
        min !== undefined && max !== undefined ? `between ${min} and ${max}` : min !== undefined ? `at least ${min}` : `at most ${max}`;
      c.here('out_of_range', `${c.name} must be ${bound}; got ${String(c.error.data)}`);
      return true;
    }
    case 'format':
      if (c.params.format === 'date-time')
        c.here(
          'invalid_datetime',
          `${c.name} is not a valid date-time: "${String(c.error.data)}"`,
          'Write an ISO 8601 date-time with a time zone, e.g. 2027-01-01T00:00:00Z.',
        );
      else
        c.here(
          'invalid_url',
          `${c.name} is not a valid URL: "${String(c.error.data)}"`,
          'Write an absolute URL, e.g. https://api.example.com/v1.',
        );
      return true;
    case 'enum': {
      const allowed = (c.params.allowedValues as unknown[]).map(String);
      const got = String(c.error.data);
      c.here('invalid_value', `${c.name} must be one of ${allowed.join(', ')}; got "${got}"${didYouMean(got, allowed)}`);
      return true;
    }
    case 'const':
      c.here(
        'unsupported_version',
        `${c.name} must be ${JSON.stringify(c.params.allowedValue)}; got ${JSON.stringify(c.error.data)}`,
        'This version of cplane reads configuration language version 1.',
      );
      return true;
    case 'required':
      c.here(
        'missing_key',
        `Missing required key "${String(c.params.missingProperty)}" in ${c.name}`,
        `Required keys here: ${((c.schema?.required as string[] | undefined) ?? []).join(', ')}.`,
        true,
      );
      return true;
  }
  return undefined;
}

/** A secret source of the wrong size, a text or list too short or too long, a list with repeats; false when ajv's own message is all there is to say. */
function wrongSize(c: SchemaError): boolean {
  switch (c.error.keyword) {
    case 'minProperties':
    case 'maxProperties':
      if (c.isSecretSource) {
        c.here('invalid_secret_source', `${c.name} must give exactly one of env, file or generate`);
        return true;
      }
      break;
    case 'minLength':
      c.here('invalid_value', `${c.name} must not be empty`);
      return true;
    case 'maxLength':
      c.here('invalid_value', `${c.name} must be c.at most ${String(c.params.limit)} characters long`);
      return true;
    case 'minItems':
      c.here('invalid_value', `${c.name} must have at least ${String(c.params.limit)} item${c.params.limit === 1 ? '' : 's'}`);
      return true;
    case 'maxItems':
      c.here('invalid_value', `${c.name} must have at most ${String(c.params.limit)} items`);
      return true;
    case 'uniqueItems':
      c.here('invalid_value', `${c.name} lists the same item twice (items ${String(c.params.j)} and ${String(c.params.i)})`);
      return true;
    case 'propertyNames':
      // The nested `pattern` error with propertyName already says which name is wrong.
      if (c.errors.some((e) => e.propertyName !== undefined && e.instancePath === c.error.instancePath)) return true;
      break;
    case 'if':
      // The errors of the branch taken (`then` or `else`, a grant written as a name or as a map) say what is wrong.
      return true;
  }
  return false;
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
