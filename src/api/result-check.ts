/**
 * Checks every success body against its operation's result schema, so an
 * answer of the wrong shape is a clear error naming the operation and the
 * field, never a crash deep in the planner. The check of each operation is
 * the code TypeBox's compiler writes for its schema in the operation table,
 * written at build time (scripts/compile-result-checks.mjs): a run loads
 * neither TypeBox nor the table, unless an answer is wrong and the error
 * must say where. Formats (`uuid`, `date-time`) are not checked: a real
 * server may write a date or an id in a form the spec does not pin down;
 * types and required members are.
 */
import type { FormatRegistry, TSchema } from '@sinclair/typebox';
import resultChecks from '../generated/result-checks.js';
import type { OperationName } from './operations.js';

/** Why `data` is not a valid result of `operation` (`field 0.name: Expected string`), or undefined when it is. */
export async function resultProblem(operation: OperationName, data: unknown): Promise<string | undefined> {
  const check = resultChecks[operation];
  if (!check || check(data)) return undefined;
  const [{ Value }, { FormatRegistry }, { operations }] = await Promise.all([
    import('@sinclair/typebox/value'),
    import('@sinclair/typebox'),
    import('./operations.js'),
  ]);
  const schema = (operations[operation] as { result: TSchema }).result;
  acceptFormats(schema, FormatRegistry);
  const first = Value.Errors(schema, data).First();
  if (!first) return 'the result does not match the result schema';
  const field = first.path === '' ? 'the result' : `field ${first.path.slice(1).replace(/\//g, '.')}`;
  return `${field}: ${first.message}`;
}

/** Registers every format the schema names as accepting any string (see above), unless something registered it already. */
function acceptFormats(schema: unknown, registry: typeof FormatRegistry): void {
  if (schema === null || typeof schema !== 'object') return;
  const format = (schema as { format?: unknown }).format;
  if (typeof format === 'string' && !registry.Has(format)) registry.Set(format, () => true);
  for (const child of Object.values(schema)) acceptFormats(child, registry);
}
