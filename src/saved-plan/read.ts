/**
 * A saved plan read back (`cplane apply FILE`, `cplane show FILE`): a plan file crosses a trust boundary, so it
 * is read no further than a bound and checked against schema/plan.schema.json; then its MAC (mac.ts) and a fresh
 * plan (check-against-fresh-plan.ts) decide whether anything trusts it.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { ErrorObject } from 'ajv';
import { AbortError } from '../errors.js';
import { PLAN_FORMAT_VERSION, type Plan, type PlanOrigin } from '../plan-model/index.js';
import { planDigest } from './write.js';

/** A plan as `cplane plan --out` saves it: with its origin, where it was made (origin.ts). */
export type SavedPlan = Plan & { origin: PlanOrigin };

const writtenForms = new WeakMap<object, object>();

/** The plan as its file holds it, which its MAC is over: a plan of format 3 was read into today's format. */
export const writtenForm = (plan: object): object => writtenForms.get(plan) ?? plan;

/** What every refusal of a saved plan tells the user to do. */
export const REPLAN = 'Make a new plan with `cplane plan --out FILE`, review it, and apply that.';

/**
 * Problems of a plan document as `path: message` (up to five), or an empty list when it is valid.
 * The validator (schema/plan.schema.json, compiled at build time by scripts/compile-schemas.mjs) is
 * loaded here, not at start-up: only a saved plan is ever checked.
 */
export async function planSchemaProblems(document: unknown): Promise<string[]> {
  const { default: validatePlan } = await import('../generated/plan-schema.js');
  if (validatePlan(document)) return [];
  return (validatePlan.errors ?? []).slice(0, 5).map((e: ErrorObject) => `${e.instancePath || '/'}: ${e.message ?? e.keyword}`);
}

/** The largest plan file read: a plan file crosses a trust boundary, and one larger than this is no plan cplane wrote. */
export const MAX_PLAN_FILE_BYTES = 32 * 1024 * 1024;

/**
 * The file's text, read no further than MAX_PLAN_FILE_BYTES: a larger file (or a device that never ends) is refused.
 * One read of the size the file has, plus a byte to notice it grew meanwhile (`plan --merge` reads hundreds).
 */
async function readBounded(path: string): Promise<string> {
  const file = await open(path, constants.O_RDONLY);
  try {
    const stat = await file.stat();
    if (!stat.isFile()) throw Object.assign(new Error('not a file'), { code: 'ENOTFILE' });
    const buffer = Buffer.allocUnsafe(Math.min(stat.size, MAX_PLAN_FILE_BYTES) + 1);
    let size = 0;
    while (size < buffer.length) {
      const { bytesRead } = await file.read(buffer, size, buffer.length - size, size);
      if (bytesRead === 0) break;
      size += bytesRead;
    }
    if (size > MAX_PLAN_FILE_BYTES) {
      throw new AbortError(
        `${path} is larger than ${MAX_PLAN_FILE_BYTES / 1024 / 1024} MiB: it is not a plan file cplane wrote, and is not read further.`,
        'Give the path of a file written by `cplane plan --out FILE`.',
      );
    }
    // A file that grew after its size was taken is read to that size and one byte more, which then does not parse.
    return buffer.toString('utf8', 0, size);
  } finally {
    await file.close();
  }
}

export async function readPlanFile(path: string): Promise<SavedPlan> {
  return (await readPlanFileWithDigest(path)).plan;
}

/** The plan and the digest of the very bytes it was read from (write.ts `planDigest`): what an apply records it applied. */
export async function readPlanFileWithDigest(path: string): Promise<{ plan: SavedPlan; digest: string }> {
  let text: string;
  try {
    text = await readBounded(path);
  } catch (error) {
    if (error instanceof AbortError) throw error;
    throw new AbortError(
      `cannot read the plan file ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      'Give the path of a file written by `cplane plan --out FILE`.',
    );
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new AbortError(`${path} is not a plan file: it is not valid JSON`, 'Make a new plan with `cplane plan --out FILE`.');
  }
  const version = (document as { formatVersion?: unknown } | null)?.formatVersion;
  if (version === 1) {
    throw new AbortError(
      `${path} was made by an older cplane (plan format 1), which cannot be applied from another folder or job.`,
      'Make a new plan with `cplane plan --out FILE`.',
    );
  }
  // Format 2 named each step twice (`id` and `address`, always equal); its steps are not read as format 3's.
  if (version === 2) {
    throw new AbortError(
      `${path} was made by an older cplane (plan format 2): this cplane reads plan formats 3 and ${PLAN_FORMAT_VERSION} only.`,
      'Run `cplane plan --out FILE` again with this cplane, review the plan, and apply that.',
    );
  }
  const problems = await planSchemaProblems(document);
  if (problems.length > 0) {
    throw new AbortError(
      `${path} is not a valid plan file:\n${problems.map((p) => `  ${p}`).join('\n')}`,
      'Make a new plan with `cplane plan --out FILE`.',
    );
  }
  const written = document as Plan;
  // Read into notices (format-3.ts); the MAC is checked over the document as written.
  const plan = version === 3 ? (await import('./format-3.js')).fromFormat3(written as never) : written;
  if (plan !== written) writtenForms.set(plan, written);
  if (!plan.origin)
    throw new AbortError(
      `${path} is not a saved plan: it has no origin (it was printed by \`cplane plan --json\` without --out?).`,
      'Save plans with `cplane plan --out FILE`.',
    );
  return { plan: plan as SavedPlan, digest: planDigest(text) };
}
