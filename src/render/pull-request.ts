/**
 * What a pull request's plan comment says beyond the plan (docs/ci.md): the other open pull requests whose
 * plans change the same addresses (the open-plan registry, docs/state.md), and the drift on the addresses this
 * plan changes. Registry entries were written by whoever can write the state: every word is escaped.
 */
import type { Plan } from '../plan-model/index.js';
import { codeSpan, markdownText } from '../text/escape-for.js';

/** Another open pull request's plan that shares addresses with this one. */
export interface SharedAddresses {
  pr: number;
  commit: string;
  addresses: string[];
}

/** Markdown to append to the plan's comment; empty when there is nothing to say. */
export function renderPullRequestNotes(plan: Plan, shared: readonly SharedAddresses[]): string {
  const own = new Set(plan.steps.map((s) => s.address));
  const drifted = plan.drift.filter((d) => own.has(d.address));
  const parts: string[] = [];
  if (shared.length > 0) {
    const lines = shared.map(
      (p) =>
        `- #${p.pr} (${codeSpan(p.commit.slice(0, 12))}): ${p.addresses
          .slice(0, 20)
          .map((a) => codeSpan(a))
          .join(', ')}${p.addresses.length > 20 ? `, and ${p.addresses.length - 20} more` : ''}`,
    );
    parts.push(
      `**Other open pull requests change the same addresses.** Whichever applies first wins; the other's saved plan is then refused at those addresses and must be planned again:\n\n${lines.join('\n')}\n`,
    );
  }
  if (drifted.length > 0) {
    const lines = drifted.map(
      (d) =>
        `- ${codeSpan(d.address)}: ${d.type === 'deleted' ? markdownText(d.reason ?? 'deleted outside cplane') : d.changes.map((c) => codeSpan(c.path)).join(', ')}`,
    );
    parts.push(`**Changed outside cplane since the last apply**, on addresses this pull request changes:\n\n${lines.join('\n')}\n`);
  }
  return parts.length > 0 ? `\n${parts.join('\n')}` : '';
}
