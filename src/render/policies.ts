/**
 * The policy report of a plan as lines: for the terminal and for Markdown.
 * The verdicts are the planner's (src/policy/); this only shows them.
 * Mandatory findings are marked `x`, advisory ones `!`.
 */
import { blockingFindings, findingLine, type Plan, type PolicyFinding } from '../plan-model/index.js';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `main.yaml:12:7`, where the resource is configured. */
export const findingPlace = (f: PolicyFinding): string | undefined => (f.at ? `${f.at.file}:${f.at.line}:${f.at.col}` : undefined);

/** The heading of the report: `Policies: 3 policies, 12 checks: all passed.` or with the counts of findings. */
export function policyHeadline(plan: Plan): string | undefined {
  const report = plan.policies;
  if (!report) return undefined;
  const blocking = blockingFindings(plan).length;
  const advisory = report.findings.length - blocking;
  const counts = `${report.policies} ${report.policies === 1 ? 'policy' : 'policies'}, ${plural(report.checked, 'check')}`;
  if (report.findings.length === 0) return `Policies: ${counts}: all passed.`;
  return `Policies: ${counts}: ${[blocking ? `${blocking} mandatory failed` : '', advisory ? `${plural(advisory, 'advisory warning')}` : ''].filter(Boolean).join(', ')}.`;
}

/** One line per finding, without colour: `x mandatory tokens-expire: gateway_token.prod/ci: ... (main.yaml:12:7)`. */
export function findingLines(plan: Plan): { level: PolicyFinding['level']; symbol: string; text: string; place?: string }[] {
  return (plan.policies?.findings ?? []).map((f) => ({
    level: f.level,
    symbol: f.level === 'mandatory' ? 'x' : '!',
    text: `${f.level} ${findingLine(f)}`,
    ...(findingPlace(f) ? { place: findingPlace(f) } : {}),
  }));
}

/** The line that says apply will not run a plan with mandatory findings; undefined when it may. */
export function refusedLine(plan: Plan): string | undefined {
  const blocking = blockingFindings(plan).length;
  return blocking > 0 ? `Refused by policy: ${plural(blocking, 'mandatory finding')}; cplane apply will not perform this plan.` : undefined;
}
