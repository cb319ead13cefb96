/**
 * The plan's spend (computed by planner/checks/spend.ts) as lines of words, for the terminal and for Markdown: the
 * headline `Max authorised: $1,200/30d → $3,900/30d (+$2,700)`, one line per gateway and per token it touches,
 * usage and "spend not read" (the spend warnings are notices: notices.ts). Only formatting: the amounts are the planner's decimal strings.
 */
import type { PlanSpend, SpendEntry, SpendLimit, SpendSide, UsageFigures } from '../plan-model/index.js';

/** `$1,200` for whole dollars, `$42.86` otherwise, `-$247.14` below zero: grouping and sign only, no arithmetic. */
export function dollars(usd: string): string {
  const negative = usd.startsWith('-');
  const [whole = '0', cents = '00'] = (negative ? usd.slice(1) : usd).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${negative ? '-' : ''}$${grouped}${cents === '00' ? '' : `.${cents}`}`;
}

/** `$1,234.50`: a spent amount, always with its cents. */
function amount(usd: string): string {
  const [whole = '0', cents = '00'] = usd.split('.');
  return `$${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${cents}`;
}

const per30d = (usd: string | null) => (usd === null ? 'unlimited' : `${dollars(usd)}/30d`);
const limitText = (limit: SpendLimit | null) => (limit === null ? 'no limit' : `$${limit.usd}/${limit.window}`);
const sideText = (s: SpendSide | null) =>
  s === null ? 'none' : s.limit === null ? 'no limit' : `${limitText(s.limit)} (${per30d(s.per30d)})`;

function deltaText(delta: string | null): string {
  if (delta === null) return '';
  return ` (${delta.startsWith('-') ? dollars(delta) : `+${dollars(delta)}`})`;
}

/** `Max authorised: $1,200/30d → $3,900/30d (+$2,700)`. */
export function spendHeadline(spend: PlanSpend): string {
  return `Max authorised: ${per30d(spend.before)} → ${per30d(spend.after)}${deltaText(spend.delta)}`;
}

const usageText = (u: UsageFigures) =>
  `used ${amount(u.spend7d)} in ${u.requests7d} request${u.requests7d === 1 ? '' : 's'} (7d), ${amount(u.spend30d)} in ${u.requests30d} (30d)${u.spendInWindow !== undefined ? `, ${amount(u.spendInWindow)} in the current window` : ''}`;

/** One line of the section; `name` is an address or a label from the account: the renderer escapes it. */
export interface SpendLine {
  depth: 0 | 1;
  name: string;
  text: string;
}

const sidesText = (e: SpendEntry) => `${sideText(e.before)} → ${sideText(e.after)}`;
const entryText = (e: SpendEntry) => `${sidesText(e)}${e.usage ? `; ${usageText(e.usage)}` : ''}`;

export function spendLines(spend: PlanSpend): SpendLine[] {
  const out: SpendLine[] = [];
  for (const g of spend.gateways) {
    out.push({
      depth: 0,
      name: g.address,
      text: `own limit ${sidesText(g)}; tokens ${per30d(g.tokensBefore)} → ${per30d(g.tokensAfter)}; max ${per30d(g.maxBefore)} → ${per30d(g.maxAfter)}`,
    });
    if (g.usage) out.push({ depth: 1, name: 'usage', text: usageText(g.usage) });
    for (const t of g.tokens) out.push({ depth: 1, name: t.address, text: entryText(t) });
  }
  return out;
}

/** Said when usage could not be read: the figures are missing, the rest of the plan is not. */
export const spendNotRead = (spend: PlanSpend): string | undefined =>
  spend.usageNotRead === undefined
    ? undefined
    : `spend not read: ${spend.usageNotRead}. Limits and steps are complete; usage figures and the warnings that need them are missing.`;
