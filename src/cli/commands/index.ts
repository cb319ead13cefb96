/**
 * Every sub-command of `cplane`, in the order `cplane --help` lists them.
 *
 * How to add a command (the list is loaded by every run, so it must stay light):
 * - Write its module here, e.g. `./lint.ts`, exporting `lintCommand: CommandModule = { async run(ctx) {...} }`
 *   (run returns the exit code). Heavy imports go in that module.
 * - Add one entry below, as plain data: `name` (the words that select it), `summary` (one line for
 *   `cplane --help`), `usage` (without the leading `cplane`), `help` (one line per flag for
 *   `cplane <cmd> --help`), `options` (node:util parseArgs options; shared flags come from ../flags.ts),
 *   and `load: async () => (await import('./lint.js')).lintCommand`.
 * - Never import a command module statically here: `load` is what keeps `cplane --help` and every other
 *   command from loading Ink, the emulator, TypeBox and the rest (bench/startup.mjs measures it).
 */
import type { Command, OptionSpec } from '../command.js';
import { connectionHelp, connectionOptions, deploymentsHelp, deploymentsOptions, githubHelp, githubOptions, lockHelp, lockOptions, stateHelp, stateOptions, variablesHelp, variablesOptions, workspaceHelp, workspaceOptions } from '../flags.js';

const applyOptions: OptionSpec = {
  ...workspaceOptions,
  ...lockOptions,
  'auto-approve': { type: 'boolean' },
  target: { type: 'string', multiple: true },
  exclude: { type: 'string', multiple: true },
  json: { type: 'boolean' },
  'no-input': { type: 'boolean' },
  ...githubOptions,
};

/** `--replace` (plan and apply): Terraform's `-replace`. */
const replaceOption: OptionSpec = { replace: { type: 'string', multiple: true } };
const replaceHelp = '--replace ADDRESS   issue ADDRESS again: a new token (created before the old one is revoked), a new generated value, a secret sent again from its source (repeatable)';

const applyHelp = [
  '--auto-approve      do not ask for approval (needed without a terminal)',
  '--target ADDRESS    limit the run to ADDRESS and what it depends on (repeatable)',
  '--exclude ADDRESS   leave ADDRESS (or module.NAME) and what depends on it out of the run; not with --target (repeatable)',
  '--json              one JSON object per event (NDJSON); never prompts',
  '--no-input          never prompt; plain lines instead of the interactive view',
  lockHelp,
  githubHelp,
  ...workspaceHelp,
];

const stateArgs = '[dir] [--account ID] [--state PATH|URL] [--workspace NAME] [--var NAME=VALUE ...] [--var-file FILE ...]';

export const commands: Command[] = [
  {
    name: ['validate'],
    summary: 'Check a configuration folder offline and report every error',
    usage: 'validate [dir] [--json] [--format github] [--github] [--var NAME=VALUE ...] [--var-file FILE ...]',
    help: [
      'dir                 configuration folder (default: the current folder)',
      '--json              print {valid, resources, files, diagnostics} as JSON on stdout',
      '--format github     print diagnostics as GitHub Actions annotations',
      githubHelp,
      ...variablesHelp,
      'Variables without a value are checked only for their type, where the type is known.',
    ],
    options: { json: { type: 'boolean' }, format: { type: 'string' }, ...variablesOptions, ...githubOptions },
    load: async () => (await import('./validate.js')).validateCommand,
  },
  {
    name: ['plan'],
    summary: 'Show what apply would change, and why',
    usage:
      'plan [dir] [--out FILE] [--target ADDRESS ... | --exclude ADDRESS ...] [--replace ADDRESS ...] [--refresh-only] [--destroy] [--detailed-exitcode] [--parallelism N] [--json | --markdown] [--format github] [--github] [--var NAME=VALUE ...] [--var-file FILE ...] [--account ID] [--state PATH]',
    help: [
      '--out FILE          save the plan as JSON for `cplane apply FILE`',
      '--target ADDRESS    plan only ADDRESS and what it depends on (repeatable)',
      '--exclude ADDRESS   plan all but ADDRESS (or module.NAME) and what depends on it; not with --target (repeatable)',
      replaceHelp,
      '--refresh-only      plan no writes: only show changes made outside cplane (applying it records them in state)',
      '--destroy           plan the removal of everything in state',
      '--detailed-exitcode exit 2 when the plan has changes, 3 when it is incomplete (0: none, 1: error)',
      '--format github     print the problems of a plan that cannot be made as GitHub Actions annotations',
      '--json              print the plan as JSON (schema/plan.schema.json)',
      '--markdown          print a Markdown summary for a pull-request comment',
      githubHelp,
      ...workspaceHelp,
      ...deploymentsHelp,
      '                    with --all: one summary table, then each plan; --out DIR saves DIR/NAME.plan.json for `cplane apply DIR`',
    ],
    options: {
      ...workspaceOptions,
      ...githubOptions,
      ...deploymentsOptions,
      out: { type: 'string' },
      target: { type: 'string', multiple: true },
      exclude: { type: 'string', multiple: true },
      ...replaceOption,
      'refresh-only': { type: 'boolean' },
      destroy: { type: 'boolean' },
      'detailed-exitcode': { type: 'boolean' },
      json: { type: 'boolean' },
      markdown: { type: 'boolean' },
      format: { type: 'string' },
    },
    load: async () => (await import('./plan.js')).planCommand,
  },
  {
    name: ['drift'],
    summary: 'Check for changes made outside cplane, without any write secret (exit 2 on drift)',
    usage: 'drift [dir] [--json | --markdown] [--parallelism N] [--github] [--var NAME=VALUE ...] [--var-file FILE ...] [--account ID] [--state PATH]',
    help: [
      'dir                 configuration folder (default: the current folder)',
      '--json              print { hasDrift, drift, notChecked, unreadable } as JSON',
      '--markdown          print the report as Markdown (what the drift issue holds)',
      'Never reads a secret source: write-only values whose source is absent are listed as not checked.',
      'Exit codes: 0 no drift, 2 drift found, 3 no drift in what could be read but something could not be read, 1 error.',
      githubHelp,
      ...workspaceHelp,
    ],
    options: { ...workspaceOptions, ...githubOptions, json: { type: 'boolean' }, markdown: { type: 'boolean' } },
    load: async () => (await import('./drift.js')).driftCommand,
  },
  {
    name: ['apply'],
    summary: 'Perform the changes of a plan (resends interrupted writes first)',
    usage: 'apply [dir | PLANFILE [dir]] [--auto-approve] [--target ADDRESS ... | --exclude ADDRESS ...] [--replace ADDRESS ...] [--parallelism N] [--json] [--no-input] [--var NAME=VALUE ...] [--var-file FILE ...] [--account ID] [--state PATH]',
    help: [
      ...applyHelp,
      replaceHelp,
      'PLANFILE            a plan saved by `cplane plan --out FILE`: applied (no prompt) when a plan made now has exactly its steps;',
      '                    it brings its variables, account, workspace and state location, and finds its configuration folder',
      '                    at the same place relative to the current folder (or give dir)',
      ...deploymentsHelp,
      '                    with --all: in waves of `after`; a failure stops the later waves. A folder of plans saved by',
      '                    `plan --all --out DIR` is applied with `cplane apply DIR`',
    ],
    options: { ...applyOptions, ...replaceOption, ...deploymentsOptions },
    load: async () => (await import('./apply.js')).applyCommand,
  },
  {
    name: ['destroy'],
    summary: 'Archive, delete and revoke everything in the state (honours preventDestroy)',
    usage: 'destroy [dir] [--auto-approve] [--target ADDRESS ... | --exclude ADDRESS ...] [--parallelism N] [--json] [--no-input] [--var NAME=VALUE ...] [--var-file FILE ...] [--account ID] [--state PATH]',
    // Removing ADDRESS removes what depends on it first (its dependencies stay): not apply's meaning of --target.
    // Excluding ADDRESS keeps it and what it depends on (removing those would remove it): OpenTofu's meaning.
    help: applyHelp.map((line) =>
      line.startsWith('--target') ? '--target ADDRESS    remove only ADDRESS and what depends on it (repeatable)'
        : line.startsWith('--exclude') ? '--exclude ADDRESS   keep ADDRESS (or module.NAME) and the objects it needs; not with --target (repeatable)' : line),
    options: applyOptions,
    load: async () => (await import('./destroy.js')).destroyCommand,
  },
  {
    name: ['export'],
    summary: 'Write a configuration folder that reproduces a live account',
    usage: 'export [--account ID] [--project NAME ...] [--out DIR] [--group] [--adopt] [--force]',
    help: [
      '--project NAME      export only this project, its gateways and the credentials they use (repeatable)',
      '--out DIR           folder to write (default ./export); created when missing',
      '--group             write gateways that differ only by name once, as a forEach template (gateway.TEMPLATE[KEY])',
      '--adopt             also record the objects in the state of this account, so `cplane plan` there shows no changes',
      '--force             write into a folder that export did not write (its YAML files are replaced)',
      lockHelp,
      ...connectionHelp,
    ],
    options: {
      ...connectionOptions,
      ...lockOptions,
      project: { type: 'string', multiple: true },
      out: { type: 'string' },
      adopt: { type: 'boolean' },
      group: { type: 'boolean' },
      force: { type: 'boolean' },
    },
    load: async () => (await import('./export.js')).exportCommand,
  },
  {
    name: ['compare'],
    summary: 'Compare the live accounts of two deployments: differences their variables do not explain (exit 2)',
    usage: 'compare DEPLOYMENT_A DEPLOYMENT_B [dir] [--json] [--var NAME=VALUE ...] [--var-file FILE ...]',
    help: [
      'DEPLOYMENT_A/B      two deployments of the configuration\'s deployments: (docs/deployments.md)',
      '--json              print { a, b, differences: [{ address, kind, field?, a?, b? }] }',
      'Reads only. Exit codes: 0 the accounts match, 2 they differ, 1 error.',
      ...connectionHelp.filter((line) => !line.startsWith('--account')),
      ...variablesHelp,
    ],
    options: { ...connectionOptions, ...variablesOptions, json: { type: 'boolean' } },
    load: async () => (await import('./compare.js')).compareCommand,
  },
  {
    name: ['state', 'list'],
    summary: 'List the addresses in the state, with their kind and remote id',
    usage: `state list ${stateArgs}`,
    help: stateHelp,
    options: stateOptions,
    load: async () => (await import('./state.js')).stateListCommand,
  },
  {
    name: ['state', 'show'],
    summary: 'Show what the state holds for one address (never a secret)',
    usage: `state show ADDRESS ${stateArgs}`,
    help: stateHelp,
    options: stateOptions,
    load: async () => (await import('./state.js')).stateShowCommand,
  },
  {
    name: ['state', 'rm'],
    summary: 'Forget an address: cplane stops managing it; the remote object is not touched',
    usage: `state rm ADDRESS ${stateArgs}`,
    help: [...stateHelp, lockHelp],
    options: { ...stateOptions, ...lockOptions },
    load: async () => (await import('./state.js')).stateRmCommand,
  },
  {
    name: ['state', 'mv'],
    summary: 'Rename an address in the state, keeping its remote object',
    usage: `state mv FROM TO ${stateArgs}`,
    help: [...stateHelp, lockHelp],
    options: { ...stateOptions, ...lockOptions },
    load: async () => (await import('./state.js')).stateMvCommand,
  },
  {
    name: ['state', 'history'],
    summary: 'List the saved versions of a PostgreSQL state: serial, time, who, command',
    usage: `state history ${stateArgs} [--limit N] [--json]`,
    help: [...stateHelp, '--limit N           newest versions to list (default 50)', '--json              one JSON document instead of lines'],
    options: { ...stateOptions, limit: { type: 'string' }, json: { type: 'boolean' } },
    load: async () => (await import('./state-transfer.js')).stateHistoryCommand,
  },
  {
    name: ['state', 'pull'],
    summary: 'Print the current state as a state file (sealed values stay sealed)',
    usage: `state pull ${stateArgs}`,
    help: stateHelp,
    options: stateOptions,
    load: async () => (await import('./state-transfer.js')).statePullCommand,
  },
  {
    name: ['state', 'push'],
    summary: 'Replace the state with a state file of the same lineage and a newer serial',
    usage: `state push FILE ${stateArgs}`,
    help: ['FILE                a state file, e.g. from `cplane state pull`', ...stateHelp, lockHelp],
    options: { ...stateOptions, ...lockOptions },
    load: async () => (await import('./state-transfer.js')).statePushCommand,
  },
  {
    name: ['state', 'migrate'],
    summary: 'Copy the state to another location: a local file to PostgreSQL, or back',
    usage: `state migrate --to PATH|URL ${stateArgs}`,
    help: ['--to PATH|URL       where to copy the state: a postgres:// URL or a state file path (same account and workspace)', ...stateHelp, lockHelp],
    options: { ...stateOptions, ...lockOptions, to: { type: 'string' } },
    load: async () => (await import('./state-transfer.js')).stateMigrateCommand,
  },
  {
    name: ['output'],
    summary: 'Show gateway tokens kept in the state (plaintext only with --reveal)',
    usage: `output [NAME] [--reveal] [--json] ${stateArgs}`,
    help: [
      'NAME                a gateway_token address, e.g. gateway_token.prod/ci (default: all tokens)',
      '--reveal            print the token plaintext',
      '--json              print JSON: { ADDRESS: { id, prefix, sensitive, value? } }',
      ...stateHelp,
    ],
    options: { ...stateOptions, reveal: { type: 'boolean' }, json: { type: 'boolean' } },
    load: async () => (await import('./output.js')).outputCommand,
  },
  {
    name: ['read'],
    summary: 'Decrypt the current value of a record here and print it (as a reader, or as cplane with the state key)',
    usage: 'read (ADDRESS [dir] | --record-id ID) [--key-file FILE] [--account ID] [--state PATH|URL] [--workspace NAME]',
    help: [
      'ADDRESS             a record address in the state, e.g. record.payments/stripe-key',
      '--record-id ID      the record\'s id instead of an address (needs no state when reading as a reader)',
      '--key-file FILE     the reader\'s X25519 private key, base64 (mode 0600; default: $CPLANE_SA_KEY)',
      'With a reader\'s key the data key wrapped for that reader is opened; without one (a personal access token),',
      'cplane\'s state key opens the value of a record this state wrote. The value goes to stdout only.',
      ...connectionHelp.filter((line) => !line.startsWith('--parallelism')),
      ...stateHelp.filter((line) => !line.startsWith('--account')),
    ],
    options: { ...connectionOptions, ...stateOptions, 'record-id': { type: 'string' }, 'key-file': { type: 'string' } },
    load: async () => (await import('./read.js')).readCommand,
  },
  {
    // Only the lock with that id is removed, so a lock taken since is safe.
    name: ['force-unlock'],
    summary: 'Remove a stale state lock, given its lock id',
    usage: `force-unlock LOCK_ID ${stateArgs} [--force]`,
    help: [
      'LOCK_ID             the lock id printed by the error that reported the lock',
      '--force             remove it even though its holder still runs on this host; for a PostgreSQL state, end the database session that holds it',
      ...stateHelp,
    ],
    options: { ...stateOptions, force: { type: 'boolean' } },
    load: async () => (await import('./force-unlock.js')).forceUnlockCommand,
  },
  {
    name: ['api'],
    summary: 'List the API operations, or call one directly',
    usage: 'api [OPERATION [--param NAME=VALUE ...] [--body JSON | --body @FILE | --body -] [--all-pages] [--idempotency-key KEY]] [--json]',
    help: [
      'OPERATION           an operation name from `cplane api` (e.g. listProjects); without one, list them all',
      '--param NAME=VALUE  a path or query parameter (repeatable); checked against the operation before sending',
      '--body JSON         the request body: JSON text, @FILE, or - to read stdin; checked before sending',
      '--all-pages         read every page of a list and print them as one result',
      '--idempotency-key K key of a write (default: a new one, printed on stderr so a retry can reuse it)',
      '--json              list the operations as JSON',
      'OPERATION --help    the parameters, body and result of one operation',
      ...connectionHelp.filter((line) => !line.startsWith('--parallelism')),
    ],
    ownHelp: true,
    options: {
      ...connectionOptions,
      param: { type: 'string', multiple: true },
      body: { type: 'string' },
      'all-pages': { type: 'boolean' },
      'idempotency-key': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    load: async () => (await import('./api.js')).apiCommand,
  },
  {
    name: ['mcp'],
    summary: 'Serve the API and cplane as tools to an AI assistant (MCP over stdio)',
    usage: 'mcp [dir] [--allow-apply] [--account ID] [--base-url URL]',
    help: [
      'dir                 configuration folder for cplane_validate, cplane_plan and cplane_apply (default: the current folder)',
      '--allow-apply       offer cplane_apply, so the assistant can change the account with no person approving (off by default; see docs/mcp.md)',
      ...connectionHelp.filter((line) => !line.startsWith('--parallelism')),
      'See docs/mcp.md for registering the server with an MCP client.',
    ],
    options: { ...connectionOptions, 'allow-apply': { type: 'boolean' } },
    load: async () => (await import('./mcp.js')).mcpCommand,
  },
  {
    name: ['openapi'],
    summary: 'Print the OpenAPI 3.1 document of the API, generated from the operation table',
    usage: 'openapi',
    help: ['(no options) the document is JSON on stdout; the emulator serves the same one at /v1/openapi.json'],
    options: {},
    load: async () => (await import('./openapi.js')).openapiCommand,
  },
  {
    name: ['emulator'],
    summary: 'Run the local emulator of the control-plane API',
    usage: 'emulator [--port N] [--data FILE] [--clock-offset DURATION] [--latency-ms N] [--faults SPEC] [--rate-limit N] [--accounts N] [--print-fixtures]',
    help: [
      '--port N            port on 127.0.0.1 (default 4010; 0 picks a free port)',
      '--data FILE         load the data from FILE and save every change to it (atomically)',
      '--clock-offset DURATION  shift the emulator\'s clock, e.g. --clock-offset=-25d, 36h, 1d12h, 0 (default: the offset saved in --data, else 0)',
      '--latency-ms N      add N milliseconds to every request',
      '--faults SPEC       inject faults, e.g. "429=0.05,500=0.05,503=0.1,drop=0.1,seed=42"',
      '--rate-limit N      answer 429 beyond N requests per second per token',
      '--print-fixtures    print the seeded accounts, users, tokens... as JSON and exit',
      '--accounts N        add N empty accounts (Tenant 1..N, ids 0a000000-0000-4000-8000-000000001001...) with Ada as admin',
    ],
    options: {
      port: { type: 'string' },
      data: { type: 'string' },
      'clock-offset': { type: 'string' },
      'latency-ms': { type: 'string' },
      faults: { type: 'string' },
      'rate-limit': { type: 'string' },
      'print-fixtures': { type: 'boolean' },
      accounts: { type: 'string' },
    },
    load: async () => (await import('./emulator.js')).emulatorCommand,
  },
];
