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
import type { Command, DeploymentRuns, OptionSpec } from '../command.js';
import {
  chooseDeploymentOptions,
  connectionHelp,
  connectionOptions,
  endpointHelp,
  endpointOptions,
  deploymentsHelp,
  deploymentsOptions,
  eachDeploymentHelp,
  oneDeploymentHelp,
  githubHelp,
  githubOptions,
  lockHelp,
  lockOptions,
  stateHelp,
  stateOptions,
  variablesHelp,
  variablesOptions,
  workspaceHelp,
  workspaceOptions,
} from '../flags.js';

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

/** `apply PLANFILE --from-comment`: the apply a `/cplane apply` comment on a pull request asks for (docs/ci.md). */
const commentOptions: OptionSpec = { 'from-comment': { type: 'boolean' }, approvals: { type: 'string' } };
const commentHelp = [
  '--from-comment      in an issue_comment workflow: apply the saved plan(s) a `/cplane apply [DEPLOYMENT...]` comment asks for, once',
  "                    the commenter may push, the head commit is approved, the plan is the head commit's and its checks passed;",
  '                    each refusal is a comment on the pull request (GITHUB_TOKEN, GITHUB_EVENT_PATH)',
  '--approvals N       with --from-comment: approvals of the head commit needed from people other than the author (default 1)',
];

/** `--replace` (plan and apply): Terraform's `-replace`. */
const replaceOption: OptionSpec = { replace: { type: 'string', multiple: true }, rewrap: { type: 'boolean' } };
const replaceHelp = [
  '--replace ADDRESS   issue ADDRESS again: a new token (created before the old one is revoked), a new generated value, a secret sent again from its source (repeatable)',
  '--rewrap            write every record value again, bound to its record and wrapped for its readers under the writer key (once, after upgrading: docs/security.md)',
];

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

/** `--manifest` and its `--deployment` (read and run): reading by name as a Service Account (docs/sdk.md). */
const manifestOptions: OptionSpec = { manifest: { type: 'string' }, deployment: { type: 'string', multiple: true } };
/** Reading by name with a manifest: `--deployment` is then the manifest's, and no configuration is read for it. */
const byManifest = (values: Record<string, unknown>) => values.manifest !== undefined;
const manifestHelp = [
  '--manifest FILE     read by name (PROJECT/RECORD) with a reader manifest, as the Service Account of $CPLANE_READER: no configuration,',
  '                    state or state key (default: $CPLANE_MANIFEST, unless a record is named by address or id)',
  "--deployment NAME   with --manifest: the manifest's deployment (default: $CPLANE_DEPLOYMENT, else its only one); without it,",
  "                    the deployment of the configuration's deployments: to use (its account, workspace, variables and token)",
];

/** read and run: the connection's and the state's flags, less what their own lines say (--account) or they do not take. */
const readerConnectionHelp = [
  ...endpointHelp.filter((line) => !line.startsWith('--account')),
  ...stateHelp.filter((line) => !line.startsWith('--account')),
];

/** Options without `--account`, for a command whose deployments name their accounts (compare). */
function withoutAccount(options: OptionSpec): OptionSpec {
  const { account: _account, ...rest } = options;
  return rest;
}

const stateArgs = '[dir] [--account ID] [--state PATH|URL] [--workspace NAME] [--var NAME=VALUE ...] [--var-file FILE ...]';

/** Usage words of the deployment flags (docs/deployments.md). */
const allArgs = '[--all | --deployment NAME ...]';
const oneArgs = '[--deployment NAME]';

/** A command run once per deployment with --all or --deployment (cli/deployments/each.ts); `dirAt` is its folder's positional. */
const each = (options: Omit<DeploymentRuns, 'runs'> & { dirAt?: number } = {}): DeploymentRuns => {
  const { dirAt, ...rest } = options;
  return { runs: 'each', ...(dirAt !== undefined ? { dir: (p) => p[dirAt] } : {}), ...rest };
};
/** A command that needs one deployment: `--deployment NAME` once. */
const one = (dirAt = 0): DeploymentRuns => ({ runs: 'one', dir: (p) => p[dirAt] });
const oneDeploymentOptions: OptionSpec = { deployment: { type: 'string', multiple: true } };

export const commands: Command[] = [
  {
    name: ['validate'],
    summary: 'Check a configuration folder offline and report every error',
    usage: `validate [dir] [--json] [--format github] [--github] [--var NAME=VALUE ...] [--var-file FILE ...] ${allArgs}`,
    help: [
      'dir                 configuration folder (default: the current folder)',
      '--json              print {valid, resources, files, diagnostics} as JSON on stdout',
      '--format github     print diagnostics as GitHub Actions annotations',
      githubHelp,
      ...variablesHelp,
      'Variables without a value are checked only for their type, where the type is known.',
      ...eachDeploymentHelp,
      '                    each deployment is checked with its own variable values',
    ],
    options: { json: { type: 'boolean' }, format: { type: 'string' }, ...variablesOptions, ...githubOptions, ...chooseDeploymentOptions },
    deployments: each(),
    load: async () => (await import('./validate.js')).validateCommand,
  },
  {
    name: ['fmt'],
    summary: 'Rewrite the configuration files in canonical form (schema key order), keeping comments',
    usage: 'fmt [dir] [--check] [--diff]',
    help: [
      'dir                 configuration folder (default: the current folder); the folders of its modules are formatted too',
      '--check             write nothing: list the files that are not in canonical form and exit 3 if there are any',
      '--diff              print the changes as a unified diff (with --check: only print them)',
    ],
    options: { check: { type: 'boolean' }, diff: { type: 'boolean' } },
    load: async () => (await import('./fmt.js')).fmtCommand,
  },
  {
    name: ['init'],
    summary: 'Get ready for the first apply: the state key, the state location, the environment variables needed',
    usage: `init ${stateArgs} [--json] ${allArgs}`,
    help: [
      'Finds the state key and says where it comes from, or creates the key file (mode 0600: keep it and back it up);',
      "checks that the state location can be written (a PostgreSQL database: that it answers; cplane's tables are made);",
      'lists the environment variables the configuration reads, and which are unset (names only, never values).',
      '--json              print { ready, stateKey, state, environment, unset } as JSON',
      ...stateHelp,
      ...eachDeploymentHelp,
    ],
    options: { ...stateOptions, json: { type: 'boolean' }, ...chooseDeploymentOptions },
    deployments: each({ inTurn: true }),
    load: async () => (await import('./init.js')).initCommand,
  },
  {
    name: ['plan'],
    summary: 'Show what apply would change, and why',
    usage:
      'plan [dir] [--out FILE] [--pr N --commit SHA] [--target ADDRESS ... | --exclude ADDRESS ...] [--replace ADDRESS ...] [--refresh-only] [--destroy] [--detailed-exitcode] [--parallelism N] [--json | --markdown] [--format github] [--github] [--var NAME=VALUE ...] [--var-file FILE ...] [--account ID] [--state PATH]',
    help: [
      '--out FILE          save the plan as JSON for `cplane apply FILE`',
      "--pr N --commit SHA the pull request and head commit the plan is for (default: a GitHub pull_request event's): with --out, registered in the state's open plans (docs/state.md)",
      '--target ADDRESS    plan only ADDRESS and what it depends on (repeatable)',
      '--exclude ADDRESS   plan all but ADDRESS (or module.NAME) and what depends on it; not with --target (repeatable)',
      ...replaceHelp,
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
      "--shard I/N|NAME    with --all: plan only job I's share of N (every N-th deployment from the I-th), for a CI matrix; or only the deployment NAME, in a job of its own",
      '--run ID            the CI run the shards belong to (default: GITHUB_RUN_ID, with GITHUB_SHA); --merge takes one run only',
      '--merge DIR...      make the one report (--markdown, --github, --json) of the plans `plan --all --shard I/N --out DIR` saved; checks each MAC',
    ],
    options: {
      ...workspaceOptions,
      ...githubOptions,
      ...deploymentsOptions,
      shard: { type: 'string' },
      run: { type: 'string' },
      merge: { type: 'boolean' },
      out: { type: 'string' },
      pr: { type: 'string' },
      commit: { type: 'string' },
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
    usage: `drift [dir] [--json | --markdown] [--parallelism N] [--github] [--var NAME=VALUE ...] [--var-file FILE ...] [--account ID] [--state PATH] ${allArgs}`,
    help: [
      'dir                 configuration folder (default: the current folder)',
      '--json              print { hasDrift, drift, hasDue, due, notChecked, unreadable } as JSON',
      '--markdown          print the report as Markdown (what the drift issue holds)',
      'Never reads a secret source: write-only values whose source is absent are listed as not checked.',
      'Also lists what is due (a token in its renewal window or expired, a rotation due): `cplane reconcile` does it.',
      'Exit codes: 0 no drift, 2 drift found or something due, 3 no drift in what could be read but something could not be read, 1 error.',
      githubHelp,
      ...workspaceHelp,
      ...eachDeploymentHelp,
      '                    with --github: one drift issue per deployment',
    ],
    options: {
      ...workspaceOptions,
      ...githubOptions,
      ...chooseDeploymentOptions,
      json: { type: 'boolean' },
      markdown: { type: 'boolean' },
    },
    deployments: each(),
    load: async () => (await import('./drift.js')).driftCommand,
  },
  {
    name: ['apply'],
    summary: 'Perform the changes of a plan (resends interrupted writes first)',
    usage:
      'apply [dir | PLANFILE [dir]] [--auto-approve] [--target ADDRESS ... | --exclude ADDRESS ...] [--replace ADDRESS ...] [--parallelism N] [--json] [--no-input] [--var NAME=VALUE ...] [--var-file FILE ...] [--account ID] [--state PATH]',
    help: [
      ...applyHelp,
      ...replaceHelp,
      ...commentHelp,
      'PLANFILE            a plan saved by `cplane plan --out FILE`: applied (no prompt) when a plan made now has exactly its steps;',
      '                    it brings its variables, account, workspace and state location, and finds its configuration folder',
      '                    at the same place relative to the current folder (or give dir)',
      ...deploymentsHelp,
      '                    with --all: in waves of `after`; a failure stops the later waves. A folder of plans saved by',
      '                    `plan --all --out DIR` is applied with `cplane apply DIR`',
    ],
    options: { ...applyOptions, ...replaceOption, ...deploymentsOptions, ...commentOptions },
    load: async () => (await import('./apply.js')).applyCommand,
  },
  {
    name: ['reconcile'],
    summary: 'The scheduled job: apply the classes of steps reconcile.autoApply allows (default: maintenance), report the rest (exit 2)',
    usage: `reconcile [dir] [--dry-run] [--json] [--lock-timeout DURATION] [--parallelism N] [--github] [--var NAME=VALUE ...] [--var-file FILE ...] [--account ID] [--state PATH] ${allArgs}`,
    help: [
      'dir                 configuration folder (default: the current folder)',
      '--dry-run           print what it would apply, and what it would leave; write nothing',
      "--json              one JSON object for the plan ({type: reconcile, apply, withheld}), then the apply's events (NDJSON)",
      'Classes: maintenance (renewals, revocations after an overlap, rotations due, expired tokens), drift (putting back',
      'what was changed outside cplane), change (what a change of the configuration asks for). No prompt: the configuration is the approval.',
      'Exit codes: 0 all applied, 2 steps wait for a person, 3 something could not be read, 1 error, 130 interrupted.',
      lockHelp,
      githubHelp,
      ...workspaceHelp,
      ...eachDeploymentHelp,
      '                    each deployment under its own state lock; one that fails never stops the others; with --github: one issue per deployment',
    ],
    options: {
      ...workspaceOptions,
      ...lockOptions,
      ...githubOptions,
      ...chooseDeploymentOptions,
      'dry-run': { type: 'boolean' },
      json: { type: 'boolean' },
    },
    deployments: each(),
    load: async () => (await import('./reconcile.js')).reconcileCommand,
  },
  {
    name: ['destroy'],
    summary: 'Archive, delete and revoke everything in the state (honours preventDestroy)',
    usage: `destroy [dir] [--auto-approve] [--target ADDRESS ... | --exclude ADDRESS ...] [--parallelism N] [--json] [--no-input] [--var NAME=VALUE ...] [--var-file FILE ...] [--account ID] [--state PATH] ${oneArgs}`,
    // Removing ADDRESS removes what depends on it first (its dependencies stay): not apply's meaning of --target.
    // Excluding ADDRESS keeps it and what it depends on (removing those would remove it): OpenTofu's meaning.
    help: applyHelp
      .map((line) =>
        line.startsWith('--target')
          ? '--target ADDRESS    remove only ADDRESS and what depends on it (repeatable)'
          : line.startsWith('--exclude')
            ? '--exclude ADDRESS   keep ADDRESS (or module.NAME) and the objects it needs; not with --target (repeatable)'
            : line,
      )
      .concat(oneDeploymentHelp),
    options: { ...applyOptions, ...oneDeploymentOptions },
    deployments: one(),
    load: async () => (await import('./destroy.js')).destroyCommand,
  },
  {
    name: ['test'],
    summary: "Run the configuration's tests (tests/*.cptest.yaml) against a fresh emulator: plan, apply, CEL assertions",
    usage: `test [dir] [--json] [--junit-xml FILE] ${allArgs}`,
    help: [
      'dir                 configuration folder (default: the current folder); its tests/*.cptest.yaml are run, in name order',
      '--json              print { passed, failed, files: [{ file, valid, diagnostics, runs }] } as JSON',
      '--junit-xml FILE    also write the results as JUnit XML to FILE (for CI test reports)',
      'Needs no API, token or state: each file runs against an emulator in this process (docs/testing.md).',
      'Exit codes: 0 every run passed, 1 a run failed or a test file is not valid.',
      ...eachDeploymentHelp,
      "                    each deployment's account and values, under the test file's own",
    ],
    options: { json: { type: 'boolean' }, 'junit-xml': { type: 'string' }, ...chooseDeploymentOptions },
    deployments: each(),
    load: async () => (await import('./test.js')).testCommand,
  },
  {
    name: ['access', 'report'],
    summary: 'List who can read each record and through which grant, flagging unmanaged, stale, unused and ending access',
    usage: `access report [dir] [--format text|json|csv|markdown] [--unused-days N] [--var NAME=VALUE ...] [--var-file FILE ...] [--account ID] [--state PATH] ${allArgs}`,
    help: [
      'dir                 configuration folder (default: the current folder)',
      '--format FORMAT     text (aligned, the default), json (schema/access-report.schema.json), csv (RFC 4180) or markdown',
      '--unused-days N     flag a grant not read for N days, from GET /audit/record-access (default 90)',
      'Reads only: the configuration, the state (no lock) and the account. Flags: unmanaged, not granted yet, may hold version N,',
      'inactive Service Account, unused, ending within 7 days (on the API\'s clock), ended (docs/access.md, "Access report").',
      'Exit codes: 0 nothing flagged, 2 a reader is flagged, 3 the audit feed could not be read, 1 error.',
      ...workspaceHelp,
      ...eachDeploymentHelp,
    ],
    options: { ...workspaceOptions, ...chooseDeploymentOptions, format: { type: 'string' }, 'unused-days': { type: 'string' } },
    deployments: each(),
    load: async () => (await import('./access-report.js')).accessReportCommand,
  },
  {
    name: ['access', 'offboard'],
    summary: "Plan taking one user's access away: revoke their shares, rotate what they could read; save it for `apply`",
    usage: `access offboard USER [dir] [--out FILE] [--json] [--parallelism N] [--var NAME=VALUE ...] [--var-file FILE ...] [--account ID] [--state PATH] ${allArgs}`,
    help: [
      "USER                the user's name in directory.users",
      '--out FILE          save the plan for `cplane apply FILE` (authenticated as `plan --out` saves one); without it the plan is only shown',
      '--json              print the plan as JSON (schema/plan.schema.json), its `offboard` part included',
      'Revokes every share of a record with USER and rotates every generated value USER could read, directly or through',
      'a group (directory.groups.NAME.members); a value from a source is listed for its owner. The configuration is',
      'never edited: the lines to remove from it are printed, with file:line:col. See docs/access.md, "Offboarding".',
      ...workspaceHelp,
      ...eachDeploymentHelp,
      '                    --out DIR saves DIR/NAME.plan.json per deployment: `cplane apply DIR` applies them all',
    ],
    options: { ...workspaceOptions, ...chooseDeploymentOptions, out: { type: 'string' }, json: { type: 'boolean' } },
    deployments: each({ dirAt: 1, outFolder: true }),
    load: async () => (await import('./access-offboard.js')).accessOffboardCommand,
  },
  {
    name: ['export'],
    summary: 'Write a configuration folder that reproduces a live account',
    usage:
      'export [--account ID] [--project NAME ...] [--out DIR] [--group] [--adopt] [--force] | export --as-deployment NAME [--account ID] [DIR]',
    help: [
      '--project NAME      export only this project, its gateways and the credentials they use (repeatable)',
      '--out DIR           folder to write (default ./export); created when missing',
      '--group             write gateways that differ only by name once, as a forEach template (gateway.TEMPLATE[KEY])',
      '--adopt             also record the objects in the state of this account, so `cplane plan` there shows no changes',
      '--force             write into a folder that export did not write (its YAML files are replaced)',
      '--as-deployment NAME  add the account to the deployments: of the configuration in DIR (default .) instead',
      '--json              with --as-deployment: the report as JSON (what was filled, what is left to fill)',
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
      'as-deployment': { type: 'string' },
      json: { type: 'boolean' },
    },
    load: async () => (await import('./export.js')).exportCommand,
  },
  {
    name: ['compare'],
    summary: 'Compare the live accounts of two deployments: differences their variables do not explain (exit 2)',
    usage: 'compare DEPLOYMENT_A DEPLOYMENT_B [dir] [--unmanaged] [--json] [--var NAME=VALUE ...] [--var-file FILE ...]',
    help: [
      "DEPLOYMENT_A/B      two deployments of the configuration's deployments: (docs/deployments.md)",
      "--unmanaged         compare every object of the accounts, also those no deployment's state manages",
      '--json              print { a, b, differences: [{ address, kind, field?, a?, b? }] }',
      'Reads only. Exit codes: 0 the accounts match, 2 they differ, 1 error.',
      ...connectionHelp.filter((line) => !line.startsWith('--account')),
      ...variablesHelp,
    ],
    options: { ...withoutAccount(connectionOptions), ...variablesOptions, json: { type: 'boolean' }, unmanaged: { type: 'boolean' } },
    load: async () => (await import('./compare.js')).compareCommand,
  },
  {
    name: ['deployments'],
    summary: 'List the deployments and their waves, offline; --matrix prints them as a GitHub Actions matrix',
    usage: 'deployments [dir] [--wave K] [--deployment NAME ...] [--changed [--base REF]] [--matrix | --json] [--github]',
    help: [
      'dir                 configuration folder (default: the current folder)',
      '--wave K            only the deployments of wave K (1: those that wait for nothing); none when there is no wave K',
      '--matrix            print {"include":[{deployment, account, workspace, wave}]} on one line, for a workflow\'s fromJSON (docs/ci.md)',
      '--json              print { waves, deployments: [{ deployment, account, workspace, wave, after }] }',
      '--github            also write the step outputs matrix, count and waves',
      ...deploymentsHelp.slice(1),
      ...variablesHelp,
    ],
    options: {
      ...variablesOptions,
      ...githubOptions,
      deployment: deploymentsOptions.deployment!,
      changed: deploymentsOptions.changed!,
      base: deploymentsOptions.base!,
      wave: { type: 'string' },
      matrix: { type: 'boolean' },
      json: { type: 'boolean' },
    },
    load: async () => (await import('./deployments.js')).deploymentsCommand,
  },
  {
    name: ['state', 'list'],
    summary: 'List the addresses in the state, with their kind and remote id',
    usage: `state list ${stateArgs} ${allArgs}`,
    help: [...stateHelp, ...eachDeploymentHelp],
    options: { ...stateOptions, ...chooseDeploymentOptions },
    deployments: each(),
    load: async () => (await import('./state.js')).stateListCommand,
  },
  {
    name: ['state', 'plans'],
    summary: "List the open plans registered with the state (each PR's saved plan), or forget a closed PR's",
    usage: `state plans ${stateArgs} [--forget PR] [--json] ${oneArgs}`,
    help: [
      "--forget PR         forget the plan of pull request PR (a closed pull request's: docs/state.md)",
      '--json              print the plans as JSON',
      ...stateHelp,
      oneDeploymentHelp,
    ],
    options: { ...stateOptions, forget: { type: 'string' }, json: { type: 'boolean' }, ...oneDeploymentOptions },
    deployments: one(),
    load: async () => (await import('./state-plans.js')).statePlansCommand,
  },
  {
    name: ['state', 'show'],
    summary: 'Show what the state holds for one address (never a secret)',
    usage: `state show ADDRESS ${stateArgs} ${allArgs}`,
    help: [...stateHelp, ...eachDeploymentHelp],
    options: { ...stateOptions, ...chooseDeploymentOptions },
    deployments: each({ dirAt: 1 }),
    load: async () => (await import('./state.js')).stateShowCommand,
  },
  {
    name: ['state', 'rm'],
    summary: 'Forget an address: cplane stops managing it; the remote object is not touched',
    usage: `state rm ADDRESS ${stateArgs} ${allArgs}`,
    help: [...stateHelp, lockHelp, ...eachDeploymentHelp],
    options: { ...stateOptions, ...lockOptions, ...chooseDeploymentOptions },
    deployments: each({ dirAt: 1 }),
    load: async () => (await import('./state.js')).stateRmCommand,
  },
  {
    name: ['state', 'mv'],
    summary: 'Rename an address in the state, keeping its remote object',
    usage: `state mv FROM TO ${stateArgs} ${allArgs}`,
    help: [...stateHelp, lockHelp, ...eachDeploymentHelp],
    options: { ...stateOptions, ...lockOptions, ...chooseDeploymentOptions },
    deployments: each({ dirAt: 2 }),
    load: async () => (await import('./state.js')).stateMvCommand,
  },
  {
    name: ['state', 'history'],
    summary: 'List the saved versions of a PostgreSQL state: serial, time, who, command',
    usage: `state history ${stateArgs} [--limit N] [--json] ${allArgs}`,
    help: [
      ...stateHelp,
      '--limit N           newest versions to list (default 50)',
      '--json              one JSON document instead of lines',
      ...eachDeploymentHelp,
    ],
    options: { ...stateOptions, limit: { type: 'string' }, json: { type: 'boolean' }, ...chooseDeploymentOptions },
    deployments: each(),
    load: async () => (await import('./state-transfer.js')).stateHistoryCommand,
  },
  {
    name: ['state', 'pull'],
    summary: 'Print the current state as a state file (sealed values stay sealed)',
    usage: `state pull ${stateArgs} ${oneArgs}`,
    help: [...stateHelp, oneDeploymentHelp],
    options: { ...stateOptions, ...oneDeploymentOptions },
    deployments: one(),
    load: async () => (await import('./state-transfer.js')).statePullCommand,
  },
  {
    name: ['state', 'push'],
    summary: 'Replace the state with a state file of the same lineage and a newer serial',
    usage: `state push FILE ${stateArgs} ${oneArgs}`,
    help: ['FILE                a state file, e.g. from `cplane state pull`', ...stateHelp, lockHelp, oneDeploymentHelp],
    options: { ...stateOptions, ...lockOptions, ...oneDeploymentOptions },
    deployments: one(1),
    load: async () => (await import('./state-transfer.js')).statePushCommand,
  },
  {
    name: ['state', 'migrate'],
    summary: 'Copy the state to another location: a local file to PostgreSQL, or back',
    usage: `state migrate --to PATH|URL ${stateArgs} ${oneArgs}`,
    help: [
      '--to PATH|URL       where to copy the state: a postgres:// URL or a state file path (same account and workspace)',
      ...stateHelp,
      lockHelp,
      oneDeploymentHelp,
    ],
    options: { ...stateOptions, ...lockOptions, to: { type: 'string' }, ...oneDeploymentOptions },
    deployments: one(),
    load: async () => (await import('./state-transfer.js')).stateMigrateCommand,
  },
  {
    name: ['output'],
    summary: 'Show gateway tokens kept in the state (plaintext only with --reveal)',
    usage: `output [NAME] [--reveal] [--json] ${stateArgs} ${allArgs}`,
    help: [
      'NAME                a gateway_token address, e.g. gateway_token.prod/ci (default: all tokens)',
      '--reveal            print the token plaintext',
      '--json              print JSON: { ADDRESS: { id, prefix, sensitive, value? } }',
      ...stateHelp,
      ...eachDeploymentHelp,
    ],
    options: { ...stateOptions, reveal: { type: 'boolean' }, json: { type: 'boolean' }, ...chooseDeploymentOptions },
    // NAME is an address (it has a dot and a slash); a folder given alone is the folder.
    deployments: each({ dir: (p) => (p.length > 1 ? p[1] : /^[a-z_]+\..*\//.test(p[0] ?? '') ? undefined : p[0]) }),
    load: async () => (await import('./output.js')).outputCommand,
  },
  {
    name: ['read'],
    summary: 'Decrypt the current value of a record here and print it (as a reader, or as cplane with the state key)',
    usage: `read (--manifest FILE PROJECT/RECORD [--deployment NAME] | ADDRESS [dir] | --record-id ID) [--key-file FILE] [--writer-key KEY ...] [--min-version N] [--account ID] [--state PATH|URL] [--workspace NAME] ${oneArgs}`,
    help: [
      ...manifestHelp,
      'ADDRESS             a record address in the state, e.g. record.payments/stripe-key',
      "--record-id ID      the record's id instead of an address (needs no state when reading as a reader)",
      "--key-file FILE     the reader's X25519 private key, base64 (mode 0600; default: $CPLANE_SA_KEY)",
      "--writer-key KEY    a writer's public key the reader trusts, as `cplane writer-key` prints it (repeatable, or comma-separated; default: $CPLANE_WRITER_KEY); needed with a reader's key",
      '--min-version N     refuse a value version older than N (a rollback by the API server)',
      '--account ID        the account the record is in (default: $CPLANE_ACCOUNT); a reader refuses a value written for another (needed with a Service Account token)',
      "With a reader's key the data key wrapped for that reader is opened; without one (a personal access token),",
      "cplane's state key opens the value of a record this state wrote. The value goes to stdout only.",
      ...readerConnectionHelp,
    ],
    // With --manifest, --deployment names the manifest's deployment: no configuration is read.
    deployments: { ...one(1), unless: byManifest },
    options: {
      ...endpointOptions,
      ...stateOptions,
      ...oneDeploymentOptions,
      'record-id': { type: 'string' },
      'key-file': { type: 'string' },
      'writer-key': { type: 'string', multiple: true },
      'min-version': { type: 'string' },
      ...manifestOptions,
    },
    load: async () => (await import('./read.js')).readCommand,
  },
  {
    name: ['run'],
    summary: 'Start a command with record values in its environment (as a reader, or as cplane with the state key); nothing on disk',
    usage: `run [dir] (--manifest FILE --env NAME=PROJECT/RECORD ... [--watch [--grace DURATION] [--interval DURATION]] | --env NAME=ADDRESS|RECORD_ID ...) [--pass-env NAME ...] [--key-file FILE] [--writer-key KEY ...] [--min-version N] ${oneArgs} -- COMMAND [ARGS...]`,
    help: [
      ...manifestHelp,
      '--watch             with --manifest: when a value changes (a renewal, a rotation), restart COMMAND with the new values',
      '--grace DURATION    with --watch: how long COMMAND has to stop after SIGTERM before SIGKILL (default 10s)',
      "--interval DURATION with --watch: how often the Service Account's record list is asked, one request for every name (default 30s)",
      '--env NAME=ADDRESS  set NAME to the value of a record: its address in the state (record.payments/stripe-key) or its id (repeatable)',
      '--pass-env NAME     give COMMAND this variable although it is withheld (a CPLANE_* variable or a secret source; repeatable)',
      "--key-file FILE     the reader's X25519 private key, base64 (mode 0600; default: $CPLANE_SA_KEY)",
      "--writer-key KEY    a writer's public key the reader trusts (default: $CPLANE_WRITER_KEY); needed with a reader's key",
      '--min-version N     refuse a value version older than N',
      '--account ID        the account the records are in (default: $CPLANE_ACCOUNT); a reader refuses a value written for another (needed with a Service Account token)',
      'Every record is read, and checked as `cplane read` checks it, before COMMAND starts: one that cannot be read stops it.',
      'COMMAND gets the environment without every CPLANE_* variable (the token, the state URL, the keys; CPLANE_READER,',
      'CPLANE_MANIFEST and CPLANE_DEPLOYMENT are consumed by --manifest) and without the',
      'variables the configuration in [dir] reads as secret sources ({ env: NAME }); --pass-env lets one through.',
      "SIGINT and SIGTERM are passed on; the exit code is COMMAND's (128 + the signal number when a signal ended it).",
      ...readerConnectionHelp,
    ],
    deployments: { ...one(), unless: byManifest },
    options: {
      ...endpointOptions,
      ...stateOptions,
      ...oneDeploymentOptions,
      env: { type: 'string', multiple: true },
      'pass-env': { type: 'string', multiple: true },
      'key-file': { type: 'string' },
      'writer-key': { type: 'string', multiple: true },
      'min-version': { type: 'string' },
      ...manifestOptions,
      watch: { type: 'boolean' },
      grace: { type: 'string' },
      interval: { type: 'string' },
    },
    load: async () => (await import('./run.js')).runCommand,
  },
  {
    name: ['writer-key'],
    summary: "Print cplane's writer public key and its id: what applications pin to accept only values cplane wrote",
    usage: `writer-key ${stateArgs} [--json] ${allArgs}`,
    help: [
      '--json              print {publicKey, keyId} as JSON',
      'The key is derived from the state key (no secret is printed). Readers pin it: `cplane read --writer-key KEY`,',
      'CPLANE_WRITER_KEY, or `writerKeys` of the SDK.',
      ...stateHelp,
      ...eachDeploymentHelp,
    ],
    options: { ...stateOptions, json: { type: 'boolean' }, ...chooseDeploymentOptions },
    deployments: each(),
    load: async () => (await import('./writer-key.js')).writerKeyCommand,
  },
  {
    name: ['reader-manifest'],
    summary:
      'Write the public manifest an application reads its secrets by name with (per deployment: base URL, account, writer key, record ids)',
    usage: 'reader-manifest SERVICE_ACCOUNT [dir] [--all | --deployment NAME ...] [--out FILE]',
    help: [
      'SERVICE_ACCOUNT     the Service Account the application reads as, by its name in grants.serviceAccounts',
      "--all               every deployment of the configuration's deployments: (as `plan --all`)",
      '--deployment NAME   only this deployment (repeatable)',
      '--out FILE          write the manifest to FILE (default: stdout)',
      'Built from the configuration and its state only (never from what the API lists); it holds no secret.',
      ...workspaceHelp,
    ],
    options: { ...workspaceOptions, all: { type: 'boolean' }, deployment: { type: 'string', multiple: true }, out: { type: 'string' } },
    load: async () => (await import('./reader-manifest.js')).readerManifestCommand,
  },
  {
    name: ['reader-credential'],
    summary: "Print CPLANE_READER, the one secret of an application: a Service Account's token and private key as one string",
    usage: 'reader-credential --token-env NAME [--key-file FILE]',
    help: [
      "--token-env NAME    the environment variable that holds the Service Account's token (never the token itself)",
      '--key-file FILE     its X25519 private key, base64 (mode 0600); without it, the key is read from stdin',
      "The credential goes to stdout alone, to be piped into the application's secret store.",
    ],
    options: { 'token-env': { type: 'string' }, 'key-file': { type: 'string' } },
    load: async () => (await import('./reader-credential.js')).readerCredentialCommand,
  },
  {
    // Only the lock with that id is removed, so a lock taken since is safe.
    name: ['force-unlock'],
    summary: 'Remove a stale state lock, given its lock id',
    usage: `force-unlock LOCK_ID ${stateArgs} [--force] ${oneArgs}`,
    help: [
      'LOCK_ID             the lock id printed by the error that reported the lock',
      '--force             remove it even though its holder still runs on this host; for a PostgreSQL state, end the database session that holds it',
      ...stateHelp,
      oneDeploymentHelp,
    ],
    options: { ...stateOptions, force: { type: 'boolean' }, ...oneDeploymentOptions },
    deployments: one(1),
    load: async () => (await import('./force-unlock.js')).forceUnlockCommand,
  },
  {
    name: ['api'],
    summary: 'List the API operations, or call one directly',
    usage:
      'api [OPERATION [--param NAME=VALUE ...] [--body JSON | --body @FILE | --body -] [--all-pages] [--idempotency-key KEY]] [--json]',
    help: [
      'OPERATION           an operation name from `cplane api` (e.g. listProjects); without one, list them all',
      '--param NAME=VALUE  a path or query parameter (repeatable); checked against the operation before sending',
      '--body JSON         the request body: JSON text, @FILE, or - to read stdin; checked before sending',
      '--all-pages         read every page of a list and print them as one result',
      '--idempotency-key K key of a write (default: a new one, printed on stderr so a retry can reuse it)',
      '--json              list the operations as JSON',
      'OPERATION --help    the parameters, body and result of one operation',
      ...endpointHelp,
    ],
    ownHelp: true,
    options: {
      ...endpointOptions,
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
    name: ['lsp'],
    summary: 'Serve the configuration language to an editor (Language Server Protocol over stdio)',
    usage: 'lsp [--stdio]',
    help: [
      'Diagnostics as validate gives them, completion, hover, go to definition, references, rename (with the moved',
      'block that keeps the live object), quick fixes and formatting, for the folders of the files the editor opens.',
      '--stdio             talk over stdin and stdout (the only transport; accepted because editors pass it)',
      'See docs/editors.md for VS Code, Neovim and Helix.',
    ],
    options: { stdio: { type: 'boolean' } },
    load: async () => (await import('./lsp.js')).lspCommand,
  },
  {
    name: ['mcp'],
    summary: 'Serve the API and cplane as tools to an AI assistant (MCP over stdio)',
    usage: 'mcp [dir] [--allow-apply] [--account ID] [--base-url URL]',
    help: [
      'dir                 configuration folder for cplane_validate, cplane_plan and cplane_apply (default: the current folder)',
      '--allow-apply       offer cplane_apply, so the assistant can change the account with no person approving (off by default; see docs/mcp.md)',
      ...endpointHelp,
      'See docs/mcp.md for registering the server with an MCP client.',
    ],
    options: { ...endpointOptions, 'allow-apply': { type: 'boolean' } },
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
    usage:
      'emulator [--port N] [--data FILE] [--clock-offset DURATION] [--latency-ms N] [--faults SPEC] [--rate-limit N] [--accounts N] [--print-fixtures]',
    help: [
      '--port N            port on 127.0.0.1 (default 4010; 0 picks a free port)',
      '--data FILE         load the data from FILE and save every change to it (atomically)',
      "--clock-offset DURATION  shift the emulator's clock, e.g. --clock-offset=-25d, 36h, 1d12h, 0 (default: the offset saved in --data, else 0)",
      '--latency-ms N      add N milliseconds to every request',
      '--faults SPEC       inject faults, e.g. "429=0.05,500=0.05,503=0.1,drop=0.1,seed=42"',
      '--rate-limit N      answer 429 beyond N requests per second per token',
      '--print-fixtures    print the seeded accounts, users, tokens... as JSON and exit',
      '--accounts N        add N accounts (Tenant 1..N, ids 0a000000-0000-4000-8000-000000001001...; Ada admin, Dana reader, group team, Service Account deployer) and print every account served',
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
  {
    name: ['show'],
    summary: 'Print a saved plan as `plan` printed it, or as JSON (checks its MAC when the state key is at hand)',
    usage: 'show (PLANFILE | DIR) [--json]',
    help: [
      'PLANFILE            a plan saved by `cplane plan --out FILE`',
      'DIR                 a folder of plans saved by `cplane plan --all --out DIR`: a section per deployment (--json: { deployments: [...] })',
      '--json              print the plan as JSON (schema/plan.schema.json)',
      'With the state key at hand (CPLANE_STATE_KEY, CPLANE_PASSPHRASE or the key file) a plan whose MAC does not match is refused;',
      'without it the plan is shown marked UNVERIFIED on stderr.',
    ],
    options: { json: { type: 'boolean' } },
    load: async () => (await import('./show.js')).showCommand,
  },
  {
    name: ['graph'],
    summary: 'Draw the dependency graph of a configuration (offline), or the steps of a saved plan, as Mermaid or DOT',
    usage: `graph [dir] [--format mermaid|dot] [--plan PLANFILE] [--var NAME=VALUE ...] [--var-file FILE ...] ${allArgs}`,
    help: [
      'dir                 configuration folder (default: the current folder); an arrow goes from a resource to what it needs',
      '--format FORMAT     mermaid (a flowchart, the default) or dot (Graphviz)',
      '--plan PLANFILE     draw the steps of a plan saved by `cplane plan --out FILE`, coloured by action, instead',
      ...variablesHelp,
      ...eachDeploymentHelp,
    ],
    options: { format: { type: 'string' }, plan: { type: 'string' }, ...variablesOptions, ...chooseDeploymentOptions },
    deployments: each(),
    load: async () => (await import('./graph.js')).graphCommand,
  },
];
