/**
 * Saved plans: `cplane plan --out FILE` writes the plan as JSON, `cplane apply
 * FILE` reads it back. The file is written for its owner only (0600) and never
 * through a symbolic link. A plan read from disk is checked against
 * schema/plan.schema.json, and then by plan-trust.ts against a fresh plan,
 * before anything trusts it.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { ErrorObject } from 'ajv';
import { AbortError } from '../errors.js';
import type { Plan } from '../plan-model/index.js';

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

export async function writePlanFile(path: string, plan: Plan): Promise<void> {
  let file;
  try {
    // O_NOFOLLOW: a link planted at the path (to ~/.bashrc, to a file another user reads) is refused, not followed.
    file = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new AbortError(`${path} is a symbolic link: cplane does not write a plan through a link.`, 'Give --out a path that is not a link (remove the link, or choose another name).');
    throw new AbortError(`cannot write the plan file ${path} (${code ?? 'error'})`, 'Give --out a path in a folder you can write to.');
  }
  try {
    // An existing file keeps its mode on open: narrow it before writing anything.
    await file.chmod(0o600);
    await file.writeFile(`${JSON.stringify(plan, null, 2)}\n`, 'utf8');
  } finally {
    await file.close();
  }
}

/** The largest plan file read: a plan file crosses a trust boundary, and one larger than this is no plan cplane wrote. */
export const MAX_PLAN_FILE_BYTES = 32 * 1024 * 1024;

/** The file's text, read no further than MAX_PLAN_FILE_BYTES: a larger file (or a device that never ends) is refused. */
async function readBounded(path: string): Promise<string> {
  const file = await open(path, constants.O_RDONLY);
  try {
    if (!(await file.stat()).isFile()) throw Object.assign(new Error('not a file'), { code: 'ENOTFILE' });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of file.createReadStream({ start: 0, end: MAX_PLAN_FILE_BYTES, autoClose: false }) as AsyncIterable<Buffer>) {
      size += chunk.length;
      chunks.push(chunk);
    }
    if (size > MAX_PLAN_FILE_BYTES) {
      throw new AbortError(`${path} is larger than ${MAX_PLAN_FILE_BYTES / 1024 / 1024} MiB: it is not a plan file cplane wrote, and is not read further.`, 'Give the path of a file written by `cplane plan --out FILE`.');
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    await file.close();
  }
}

export async function readPlanFile(path: string): Promise<Plan & { context: NonNullable<Plan['context']> }> {
  let text: string;
  try {
    text = await readBounded(path);
  } catch (error) {
    if (error instanceof AbortError) throw error;
    throw new AbortError(`cannot read the plan file ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, 'Give the path of a file written by `cplane plan --out FILE`.');
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new AbortError(`${path} is not a plan file: it is not valid JSON`, 'Make a new plan with `cplane plan --out FILE`.');
  }
  const version = (document as { formatVersion?: unknown } | null)?.formatVersion;
  if (version === 1) {
    throw new AbortError(`${path} was made by an older cplane (plan format 1), which cannot be applied from another folder or job.`, 'Make a new plan with `cplane plan --out FILE`.');
  }
  const problems = await planSchemaProblems(document);
  if (problems.length > 0) {
    throw new AbortError(`${path} is not a valid plan file:\n${problems.map((p) => `  ${p}`).join('\n')}`, 'Make a new plan with `cplane plan --out FILE`.');
  }
  const plan = document as Plan;
  if (!plan.context) throw new AbortError(`${path} is not a saved plan: it has no context (it was printed by \`cplane plan --json\` without --out?).`, 'Save plans with `cplane plan --out FILE`.');
  return plan as Plan & { context: NonNullable<Plan['context']> };
}
