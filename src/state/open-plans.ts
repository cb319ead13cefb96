/**
 * The open-plan registry (docs/state.md): each pull request's saved plan, registered in the state's backend
 * when `cplane plan --out` knows the pull request, so the plans of a team know each other. Planning never
 * locks: a registration replaces the pull request's earlier one (a new commit supersedes its plan), an apply
 * forgets it, and `cplane state plans --forget PR` forgets a closed one. What the registry holds was written
 * by anyone who can write the state's folder or database: it is read as untrusted data, checked here, and
 * escaped wherever it is printed. It decides nothing an apply does; it only tells people who else is working.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';
import { isErrno } from './file-errors.js';

/** A pull request's saved plan, as the registry keeps it. */
export interface OpenPlan {
  /** The pull request's number. */
  pr: number;
  /** The commit the plan was made from (the pull request's head). */
  commit: string;
  /** The addresses the plan changes. */
  addresses: string[];
  /** `sha256:` of the saved plan file: what an approval is for. */
  digest: string;
  /** ISO time. */
  plannedAt: string;
}

/** The most plans a registry holds: a team's open pull requests, not an unbounded list anyone could grow. */
export const MAX_OPEN_PLANS = 1000;
const MAX_ADDRESSES = 10_000;

/** An entry as read back, or undefined when it is not one cplane writes (it is then left out, not trusted). */
export function checkedOpenPlan(value: unknown): OpenPlan | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  const ok =
    Number.isSafeInteger(v.pr) &&
    (v.pr as number) > 0 &&
    typeof v.commit === 'string' &&
    /^[0-9a-f]{7,64}$/i.test(v.commit) &&
    typeof v.digest === 'string' &&
    /^sha256:[0-9a-f]{64}$/.test(v.digest) &&
    typeof v.plannedAt === 'string' &&
    Array.isArray(v.addresses) &&
    v.addresses.length <= MAX_ADDRESSES &&
    v.addresses.every((a) => typeof a === 'string' && a.length <= 1000);
  return ok
    ? {
        pr: v.pr as number,
        commit: v.commit as string,
        addresses: v.addresses as string[],
        digest: v.digest as string,
        plannedAt: v.plannedAt as string,
      }
    : undefined;
}

/** The other pull requests whose plans change any of `addresses`, with the addresses they share, by pull request. */
export function overlappingPlans(plans: readonly OpenPlan[], pr: number | undefined, addresses: readonly string[]): OpenPlan[] {
  const mine = new Set(addresses);
  return plans
    .filter((p) => p.pr !== pr)
    .map((p) => ({ ...p, addresses: p.addresses.filter((a) => mine.has(a)) }))
    .filter((p) => p.addresses.length > 0)
    .sort((a, b) => a.pr - b.pr);
}

/** Where a backend keeps its open plans. */
export interface OpenPlanRegistry {
  list(): Promise<OpenPlan[]>;
  /** Registers the pull request's plan, replacing its earlier one. */
  register(plan: OpenPlan): Promise<void>;
  /** Forgets the pull request's plan; with `digest`, only when its registered plan is that one (a newer plan stays). */
  forget(pr: number, digest?: string): Promise<boolean>;
}

/**
 * The registry of a state file: `state.json.plans.json` beside it, replaced whole by a rename (a reader sees the
 * old list or the new one). Two registrations at the same instant on one machine may lose one; the next plan of
 * that pull request registers it again.
 */
export class FileOpenPlans implements OpenPlanRegistry {
  constructor(private readonly path: string) {}

  async list(): Promise<OpenPlan[]> {
    const text = await readFile(this.path, 'utf8').catch((error: unknown) => {
      if (isErrno(error, 'ENOENT')) return undefined;
      throw error;
    });
    if (text === undefined) return [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return [];
    }
    const entries = Array.isArray((parsed as { plans?: unknown })?.plans) ? (parsed as { plans: unknown[] }).plans : [];
    return entries
      .slice(0, MAX_OPEN_PLANS)
      .map(checkedOpenPlan)
      .filter((p): p is OpenPlan => p !== undefined)
      .sort((a, b) => a.pr - b.pr);
  }

  async register(plan: OpenPlan): Promise<void> {
    const others = (await this.list()).filter((p) => p.pr !== plan.pr);
    await this.store([...others, plan].slice(-MAX_OPEN_PLANS));
  }

  async forget(pr: number, digest?: string): Promise<boolean> {
    const plans = await this.list();
    const kept = plans.filter((p) => p.pr !== pr || (digest !== undefined && p.digest !== digest));
    if (kept.length === plans.length) return false;
    await this.store(kept);
    return true;
  }

  private async store(plans: OpenPlan[]): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    const temp = `${this.path}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temp, `${JSON.stringify({ plans }, null, 1)}\n`, { mode: 0o600, flag: 'wx' });
    await rename(temp, this.path);
  }
}
