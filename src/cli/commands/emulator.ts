/**
 * `cplane emulator`: runs the local emulator of the API on 127.0.0.1 until
 * SIGINT or SIGTERM. The first line of output is the base URL, so scripts can
 * read it; `--print-fixtures` prints the seeded data as JSON and exits.
 */
import type { CommandModule } from '../../session/command-context.js';
import { AbortError } from '../../errors.js';
import {
  fixtures,
  formatDuration,
  parseDuration,
  parseFaultSpec,
  printableFixtures,
  servedFixtures,
  startEmulator,
} from '../../emulator/index.js';
import { jsonText } from '../../text/json-text.js';

function integerFlag(values: Record<string, unknown>, name: string, min: number, max: number): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (typeof raw !== 'string' || raw.trim() === '' || !Number.isInteger(value) || value < min || value > max) {
    throw new AbortError(`--${name} must be a whole number from ${min} to ${max}, got "${String(raw)}".`);
  }
  return value;
}

function clockOffsetFlag(raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  try {
    return parseDuration(String(raw));
  } catch (error) {
    throw new AbortError(
      `--clock-offset: ${(error as Error).message}.`,
      'Example: --clock-offset -25d (25 days behind), --clock-offset 36h',
    );
  }
}

/**
 * What a fleet needs of every account served (`--accounts N`): its id, its groups and Service Accounts (with their
 * public keys and tokens), and the users with the accounts they are members of, for `deployments:` and `directory:`.
 */
function accountsServed(accounts: number): string[] {
  const served = printableFixtures(accounts);
  const { tokens, tokenOwners } = servedFixtures(accounts);
  const tokenOf = (serviceAccountId: string) =>
    tokens[Object.entries(tokenOwners).find(([, owner]) => 'serviceAccountId' in owner && owner.serviceAccountId === serviceAccountId)![0]];
  const lines = ['', `Accounts served (test values; all of it as JSON: cplane emulator --print-fixtures --accounts ${accounts}):`];
  for (const account of served.accounts) {
    lines.push(`  ${account.name}: ${account.id}`);
    for (const g of served.groups.filter((g) => g.accountId === account.id))
      lines.push(`    group ${g.name}: id ${g.id}, publicKey ${g.publicKey}`);
    for (const s of served.serviceAccounts.filter((s) => s.accountId === account.id)) {
      lines.push(`    Service Account ${s.name} (${s.status}): keyId ${s.keyId}${s.status === 'active' ? `, token ${tokenOf(s.id)}` : ''}`);
    }
  }
  lines.push('Users:');
  for (const u of served.users) {
    const of = u.memberships.map((m) => served.accounts.find((a) => a.id === m.accountId)!.name);
    lines.push(`  ${u.name}: id ${u.id}, publicKey ${u.publicKey ?? 'none (not set up)'}; member of ${of.join(', ')}`);
  }
  return lines;
}

export const emulatorCommand: CommandModule = {
  async run(ctx) {
    const accounts = integerFlag(ctx.values, 'accounts', 0, 1000);
    if (ctx.values['print-fixtures']) {
      ctx.stdout.write(`${jsonText(printableFixtures(accounts), 2)}\n`);
      return 0;
    }
    const port = integerFlag(ctx.values, 'port', 0, 65535) ?? 4010;
    const latencyMs = integerFlag(ctx.values, 'latency-ms', 0, 600_000);
    const rateLimit = integerFlag(ctx.values, 'rate-limit', 1, 1_000_000);
    const faultsText = ctx.values['faults'];
    let faults;
    if (typeof faultsText === 'string') {
      try {
        faults = parseFaultSpec(faultsText);
      } catch (error) {
        throw new AbortError(`--faults: ${(error as Error).message}.`, 'Example: --faults "429=0.05,500=0.05,503=0.1,drop=0.1,seed=42"');
      }
    }
    const dataFile = typeof ctx.values['data'] === 'string' ? ctx.values['data'] : undefined;
    const clockOffset = clockOffsetFlag(ctx.values['clock-offset']);

    let emulator;
    try {
      emulator = await startEmulator({
        port,
        latencyMs,
        rateLimit,
        faults,
        dataFile,
        ...(accounts !== undefined ? { accounts } : {}),
        ...(clockOffset !== undefined ? { clockOffset } : {}),
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE')
        throw new AbortError(`port ${port} is already in use.`, 'Pick another with --port N, or --port 0 for a free one.');
      if (dataFile && error instanceof Error) throw new AbortError(`cannot use the data file ${dataFile}: ${error.message}`);
      throw error;
    }
    // Listening before anything is printed: a script that stops it as soon as it reads the URL stops it cleanly.
    const stopped = new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    ctx.stdout.write(
      [
        emulator.url,
        '',
        'The cplane API emulator is running. In another shell:',
        `  export CPLANE_BASE_URL=${emulator.url}`,
        `  export CPLANE_TOKEN=${fixtures.tokens.admin}`,
        `  export CPLANE_ACCOUNT=${fixtures.accounts[0]!.id}`,
        ...(accounts ? accountsServed(accounts) : ['Seeded accounts, users and tokens: cplane emulator --print-fixtures']),
        ...(emulator.clockOffsetMs() !== 0
          ? [`Clock: ${emulator.now().toISOString()} (offset ${formatDuration(emulator.clockOffsetMs())} from this machine's clock).`]
          : []),
        'Press Ctrl-C to stop.',
        '',
      ].join('\n'),
    );
    await stopped;
    await emulator.close();
    return 0;
  },
};
