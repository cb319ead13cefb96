/**
 * Checks every success body against its operation's result schema (from the
 * operation table), so an answer of the wrong shape is a clear error naming
 * the operation and the field, never a crash deep in the planner. The
 * TypeBox value checker interprets the schema directly: nothing is compiled,
 * and it (with the schema table) is loaded only on the first answer, so start-up pays nothing and a
 * command pays about a millisecond per answer. Formats (`uuid`, `date-time`)
 * are not checked: a real server may write a date or an id in a form the spec
 * does not pin down; types and required members are.
 */
import type { TSchema } from '@sinclair/typebox';
import type { OperationName } from './operations.js';

type Checker = (schema: TSchema, value: unknown) => { path: string; message: string } | undefined;
let checker: Promise<Checker> | undefined;

async function loadChecker(): Promise<Checker> {
  const [{ Value }, { FormatRegistry }] = await Promise.all([import('@sinclair/typebox/value'), import('@sinclair/typebox')]);
  const accepted = new Set<string>();
  /** Every format a schema names is accepted as any string (see above); registered once, only when nothing else did. */
  const acceptFormats = (schema: unknown) => {
    if (schema === null || typeof schema !== 'object') return;
    const format = (schema as { format?: unknown }).format;
    if (typeof format === 'string' && !accepted.has(format)) {
      accepted.add(format);
      if (!FormatRegistry.Has(format)) FormatRegistry.Set(format, () => true);
    }
    for (const child of Object.values(schema)) acceptFormats(child);
  };
  return (schema, value) => {
    acceptFormats(schema);
    if (Value.Check(schema, value)) return undefined;
    const first = Value.Errors(schema, value).First();
    return first ? { path: first.path, message: first.message } : { path: '', message: 'does not match the result schema' };
  };
}

/** Why `data` is not a valid result of `operation` (`field 0.name: Expected string`), or undefined when it is. */
export async function resultProblem(operation: OperationName, data: unknown): Promise<string | undefined> {
  // The schema table (TypeBox) is loaded with the checker, on the first answer, never at start-up.
  const { operations } = await import('./operations.js');
  const spec = operations[operation];
  if (!('result' in spec)) return undefined;
  const check = await (checker ??= loadChecker());
  const problem = check(spec.result as TSchema, data);
  if (!problem) return undefined;
  const field = problem.path === '' ? 'the result' : `field ${problem.path.slice(1).replace(/\//g, '.')}`;
  return `${field}: ${problem.message}`;
}
