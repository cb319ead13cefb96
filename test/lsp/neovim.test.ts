// The language server in a real editor: Neovim headless (Debian's 0.7.2 here), configured with docs/editors.md's
// own Lua (taken from the page, for the version that runs), on a configuration in a Git work tree with a module.
// A Lua script (neovim/drive.lua) opens the module's file and another, waits on the server's answers, asks for
// completion and definition, renames through Neovim's own apply of the edit, saves, and writes what it saw.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCli } from '../helpers/built-cli.js';
import { ensureNeovim } from '../helpers/neovim.js';

const here = dirname(fileURLToPath(import.meta.url));
const neovim = ensureNeovim();
if (!neovim.ok) console.warn(`test/lsp/neovim.test.ts skipped: ${neovim.reason}`);

/** The Lua blocks of docs/editors.md's Neovim section: the root finder and the setup for this version. */
function docsSetup(minor: number): string {
  const docs = readFileSync(join(here, '../../docs/editors.md'), 'utf8');
  const blocks = [...docs.matchAll(/```lua\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const pick = (title: string) => {
    const block = blocks.find((b) => b.startsWith(`-- cplane: ${title}`));
    if (!block) throw new Error(`docs/editors.md has no Lua block "-- cplane: ${title}"`);
    return block;
  };
  const setup = minor >= 8 ? pick('the language server (Neovim 0.8 and later)') : pick('the language server (Neovim 0.7)');
  return `${pick('the configuration folder of a file')}\n${setup}`;
}

const main = `version: 1
projects:
  payments: {}
credentials:
  openai:
    provider: openai
    secret: { env: OPENAI_API_KEY }
modules:
  team:
    source: ./modules/team
    inputs: { project: payments, credential: openai }
`;
const gateways = `gateways:
  prod:
    project: paymnts
    defaultModel: gpt-4o-mini
    credentials: [openai]
`;
const module = `variables:
  project: {}
  credential: {}
gateways:
  team:
    project: \${var.project}
    defaultModel: gpt-4o-mini
    credentials: ["\${var.credential}"]
`;

interface Seen {
  errors: string[];
  module_root?: string;
  root?: string;
  clients?: number;
  diagnostics?: { lnum: number; col: number; end_col: number; message: string }[];
  module_diagnostics?: number;
  completion?: string[];
  definition?: { path: string; line: number };
  renamed?: boolean;
}

let home: string;
let infra: string;
let seen: Seen;

function runNeovim(setup: string): Promise<{ code: number | null; stderr: string }> {
  const bin = join(home, 'bin');
  mkdirSync(bin);
  // `cplane` on PATH, as the docs' `cmd` expects: the built CLI.
  writeFileSync(join(bin, 'cplane'), `#!/bin/sh\nexec "${process.execPath}" "${builtCli()}" "$@"\n`);
  chmodSync(join(bin, 'cplane'), 0o755);
  writeFileSync(join(home, 'init.lua'), setup);
  const env = {
    ...process.env,
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_DATA_HOME: join(home, 'data'),
    XDG_STATE_HOME: join(home, 'state'),
    XDG_CACHE_HOME: join(home, 'cache'),
    CPLANE_NVIM_DIR: infra,
    CPLANE_NVIM_OUT: join(home, 'seen.json'),
    OPENAI_API_KEY: 'sk-test',
  };
  const args = ['--headless', '-n', '-i', 'NONE', '-u', join(home, 'init.lua'), '-c', `luafile ${join(here, 'neovim', 'drive.lua')}`];
  const child = spawn('nvim', args, { env, cwd: home, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on('data', () => {});
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

describe.skipIf(!neovim.ok)('Neovim with the docs setup', () => {
  beforeAll(async () => {
    home = realpathSync(mkdtempSync(join(tmpdir(), 'cplane-nvim-')));
    // A Git work tree whose configuration folder is infra/, with a module below it.
    mkdirSync(join(home, 'repo', '.git'), { recursive: true });
    infra = join(home, 'repo', 'infra');
    mkdirSync(join(infra, 'modules', 'team'), { recursive: true });
    writeFileSync(join(infra, 'main.yaml'), main);
    writeFileSync(join(infra, 'gateways.yaml'), gateways);
    writeFileSync(join(infra, 'modules/team/main.yaml'), module);
    const { code, stderr } = await runNeovim(docsSetup(neovim.ok ? neovim.version[1] : 0));
    const out = join(home, 'seen.json');
    let text: string;
    try {
      text = readFileSync(out, 'utf8');
    } catch {
      throw new Error(`Neovim wrote no results (exit ${code}): ${stderr}`);
    }
    seen = JSON.parse(text) as Seen;
  }, 600_000);
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it("starts one server, at the configuration folder, also from a module's file", () => {
    expect(seen.errors).toEqual([]);
    expect(seen.module_root).toBe(infra);
    expect(seen.root).toBe(infra);
    expect(seen.clients).toBe(1);
    expect(seen.module_diagnostics).toBe(0);
  });

  it('shows the diagnostics at the value', () => {
    expect(seen.diagnostics).toEqual([
      expect.objectContaining({ lnum: 2, col: 13, end_col: 20, message: expect.stringContaining('Unknown project "paymnts"') }),
    ]);
  });

  it('completes and goes to a definition', () => {
    expect(seen.completion).toContain('payments');
    expect(seen.definition).toEqual({ path: join(infra, 'main.yaml'), line: 4 });
  });

  it('renames across files and the module call, with the moved block, as Neovim applies and saves it', () => {
    expect(seen.renamed).toBe(true);
    expect(readFileSync(join(infra, 'gateways.yaml'), 'utf8')).toContain('credentials: [openai-main]');
    const renamed = readFileSync(join(infra, 'main.yaml'), 'utf8');
    expect(renamed).toContain('  openai-main:\n    provider: openai');
    expect(renamed).toContain('credential: openai-main }');
    expect(renamed).toContain('moved:\n  - from: credential.openai\n    to: credential.openai-main\n');
  });
});
