/**
 * `cplane output [NAME] [--reveal] [--json]`: the gateway tokens in the state,
 * whose plaintext the API shows only once. The plaintext is printed only with
 * --reveal; otherwise each token says it is sensitive. A token that has
 * expired, or expires within a week, says so (from the `expires_at` recorded
 * at creation, against this machine's clock: the command reads no API).
 */
import type { CommandModule } from '../../session/command-context.js';
import { AbortError } from '../../errors.js';
import { kindOf } from '../../plan-model/index.js';
import { relativeTime } from '../../planner/index.js';
import { isKind, kindOrder, definitionOf } from '../../providers/index.js';
import type { ResourceState, StateStore } from '../../state/index.js';
import { openStateFor } from '../../session/workspace.js';
import { jsonText } from '../../text/json-text.js';

/** The kinds whose one-time secret the state keeps (`relations.revealable`): what NAME may name. */
const revealable = (kind: string | undefined) =>
  kind !== undefined && isKind(kind) && definitionOf(kind).relations.revealable !== undefined;
const namePrefixes = () =>
  kindOrder
    .filter(revealable)
    .map((kind) => `${kind}.`)
    .join(' or ');
const usage = 'output [NAME] [dir] [--reveal] [--json] [options]';
/** A token that expires within this is marked as expiring soon. */
const SOON_MS = 7 * 86_400_000;

interface TokenOutput {
  id: string;
  /** `outputs.tokenPrefix` as the API answered it: the start of the token, safe to show. */
  prefix: string | null;
  sensitive: true;
  /** `expires_at` as the API answered it at creation; null when it never expires or is not recorded. */
  expiresAt: string | null;
  /** `expired` once `expiresAt` has passed, `expiring` within a week of it. */
  expiry: 'expired' | 'expiring' | null;
  /** Only with --reveal; null when the state keeps no plaintext (the token was not created by cplane). */
  value?: string | null;
}

function expiryOf(expiresAt: string | null, now: number): TokenOutput['expiry'] {
  const at = expiresAt === null ? Number.NaN : Date.parse(expiresAt);
  if (!Number.isFinite(at)) return null;
  return at <= now ? 'expired' : at - now <= SOON_MS ? 'expiring' : null;
}

function describeToken(store: StateStore, address: string, token: ResourceState, reveal: boolean): TokenOutput {
  const prefix = token.outputs?.tokenPrefix ?? null;
  const expiresAt = token.outputs?.expiresAt ?? null;
  const out: TokenOutput = { id: token.id, prefix, sensitive: true, expiresAt, expiry: expiryOf(expiresAt, Date.now()) };
  if (reveal) {
    const sealed = token.sealed?.plaintext;
    out.value = sealed ? store.crypto.open(address, sealed) : null;
  }
  return out;
}

function textLine(address: string, out: TokenOutput, hasPlaintext: boolean): string {
  const shown = out.value ?? (hasPlaintext ? '(sensitive: use --reveal)' : '(no plaintext kept: the API shows it only at creation)');
  const when = out.expiresAt ? relativeTime(Date.parse(out.expiresAt) - Date.now()) : '';
  const expiry =
    out.expiry === 'expired' ? `, EXPIRED ${when}: cplane apply replaces it` : out.expiry === 'expiring' ? `, expires ${when}` : '';
  return `${address} = ${shown}  [id ${out.id}${out.prefix ? `, prefix ${out.prefix}` : ''}${expiry}]`;
}

export const outputCommand: CommandModule = {
  async run(ctx) {
    const [first, second, ...extra] = ctx.positionals;
    const name = first !== undefined && revealable(kindOf(first)) ? first : undefined;
    const dir = name ? second : first;
    if (extra.length > 0 || (!name && second !== undefined)) {
      throw new AbortError(
        `Unexpected arguments: ${ctx.positionals.join(' ')}.`,
        `Usage: cplane ${usage} (NAME starts with ${namePrefixes()})`,
      );
    }
    const reveal = ctx.values.reveal === true;
    const store = await openStateFor(ctx, dir, { lock: false, command: 'output' });
    try {
      const tokens = Object.entries(store.data.resources)
        .filter(([address, r]) => definitionOf(r.kind).relations.revealable !== undefined && (!name || address === name))
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      if (name && tokens.length === 0) {
        throw new AbortError(
          `${name} is not a gateway token in the state ${store.path}.`,
          'Run `cplane output` to list the tokens it holds.',
        );
      }
      const outputs = tokens.map(
        ([address, token]) => [address, describeToken(store, address, token, reveal), Boolean(token.sealed?.plaintext)] as const,
      );
      if (ctx.values.json === true) {
        ctx.stdout.write(`${jsonText(Object.fromEntries(outputs.map(([address, out]) => [address, out])), 2)}\n`);
      } else if (name && reveal) {
        const value = outputs[0]![1].value;
        if (value === null)
          throw new AbortError(
            `The state keeps no plaintext for ${name}: the API shows it only at creation.`,
            'Rotate the token to get a new plaintext.',
          );
        // Alone on stdout, so it can be piped: `cplane output gateway_token.prod/ci --reveal | ...`.
        ctx.stdout.write(`${value}\n`);
      } else if (outputs.length === 0) {
        ctx.stdout.write('The state holds no gateway tokens.\n');
      } else {
        for (const [address, out, hasPlaintext] of outputs) ctx.stdout.write(`${textLine(address, out, hasPlaintext)}\n`);
      }
    } finally {
      await store.close();
    }
    return 0;
  },
};
