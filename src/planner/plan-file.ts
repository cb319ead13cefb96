/**
 * Saved plans: `cplane plan --out FILE` writes the plan as JSON, `cplane apply
 * FILE` reads it back. A plan read from disk is checked against
 * schema/plan.schema.json before anything trusts it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { AbortError } from '../errors.js';
import type { Plan } from './types.js';

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

export const planSchemaUrl = new URL('../../schema/plan.schema.json', import.meta.url);

let validator: ValidateFunction<Plan> | undefined;

/** Problems of a plan document as `path: message` (up to five), or an empty list when it is valid. */
export function planSchemaProblems(document: unknown): string[] {
  if (!validator) {
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    addFormats(ajv, ['date-time', 'uuid']);
    validator = ajv.compile<Plan>(JSON.parse(readFileSync(planSchemaUrl, 'utf8')) as object);
  }
  if (validator(document)) return [];
  return (validator.errors ?? []).slice(0, 5).map((e: ErrorObject) => `${e.instancePath || '/'}: ${e.message ?? e.keyword}`);
}

export async function writePlanFile(path: string, plan: Plan): Promise<void> {
  await writeFile(path, `${JSON.stringify(plan, null, 2)}\n`, 'utf8');
}

export async function readPlanFile(path: string): Promise<Plan> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new AbortError(`cannot read the plan file ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, 'Give the path of a file written by `cplane plan --out FILE`.');
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new AbortError(`${path} is not a plan file: it is not valid JSON`, 'Make a new plan with `cplane plan --out FILE`.');
  }
  const problems = planSchemaProblems(document);
  if (problems.length > 0) {
    throw new AbortError(`${path} is not a valid plan file:\n${problems.map((p) => `  ${p}`).join('\n')}`, 'Make a new plan with `cplane plan --out FILE`.');
  }
  return document as Plan;
}
