// A build of another commit of this repository, for a bench's `--baseline`: a directory with its own `dist/` is
// taken as it is; anything else is a Git revision, checked out in a temporary work tree (`git worktree add
// --detach`) beside this one's node_modules (hard-linked, so it costs no copy) and built with `npm run build`.
// The work tree is named by the commit, so `--keep-baseline` leaves it for the next run to reuse.
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const run = (command, args, cwd) => execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();

/** `{ root, name, remove }` of the baseline `given` (a checkout's directory or a Git revision of `repo`). */
export function baselineBuild(given, repo, { keep = false } = {}) {
  if (existsSync(given) && statSync(given).isDirectory()) {
    if (!existsSync(join(given, 'dist'))) throw new Error(`--baseline ${given}: the checkout has no dist/ (run npm run build there)`);
    return { root: given, name: given, remove: () => {} };
  }
  const commit = run('git', ['rev-parse', '--verify', `${given}^{commit}`], repo);
  const root = join(tmpdir(), `cplane-baseline-${commit.slice(0, 12)}`);
  const name = `${given} (${commit.slice(0, 9)})`;
  if (!existsSync(join(root, 'dist', 'cli'))) {
    rmSync(root, { recursive: true, force: true });
    run('git', ['worktree', 'prune'], repo);
    console.log(`building the baseline ${name} in ${root} ...`);
    run('git', ['worktree', 'add', '--detach', root, commit], repo);
    // Hard links: the same packages at no cost in disk or time (`cp -al`); a copy where links cannot be made.
    try {
      run('cp', ['-al', join(repo, 'node_modules'), join(root, 'node_modules')], repo);
    } catch {
      run('cp', ['-a', join(repo, 'node_modules'), join(root, 'node_modules')], repo);
    }
    run('npm', ['run', 'build', '--silent'], root);
  } else console.log(`the baseline ${name}: reusing its build in ${root}`);
  const remove = () => {
    if (keep) return;
    run('git', ['worktree', 'remove', '--force', root], repo);
  };
  return { root, name, remove };
}
