// Neovim for the editor test (test/lsp/neovim.test.ts): the one on PATH, else Debian's, installed with apt-get
// when this process may (root, apt-get present); otherwise the reason it cannot run, for the skip message.
import { spawnSync } from 'node:child_process';

export type Neovim = { ok: true; version: [number, number, number] } | { ok: false; reason: string };

function version(): [number, number, number] | undefined {
  const run = spawnSync('nvim', ['--version'], { encoding: 'utf8' });
  const match = /NVIM v(\d+)\.(\d+)\.(\d+)/.exec(run.stdout ?? '');
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

export function ensureNeovim(): Neovim {
  const found = version();
  if (found) return { ok: true, version: found };
  if (process.getuid?.() !== 0) return { ok: false, reason: 'nvim is not on PATH, and installing it needs root (apt-get install neovim)' };
  if (spawnSync('apt-get', ['--version']).status !== 0)
    return { ok: false, reason: 'nvim is not on PATH, and there is no apt-get to install it' };
  const install = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'neovim'], {
    encoding: 'utf8',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  const installed = version();
  if (installed) return { ok: true, version: installed };
  return { ok: false, reason: `apt-get install neovim failed: ${(install.stderr || install.stdout || '').trim().split('\n').at(-1)}` };
}
