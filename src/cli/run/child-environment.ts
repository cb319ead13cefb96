/**
 * The environment `cplane run` starts its command with. The command gets the values it asked for (`--env`), not
 * what opens or writes every value: the parent's environment goes without every `CPLANE_*` variable (the token,
 * which may be an admin's; a state URL, which may hold a database password; the state key, passphrase and reader
 * key) and without the variables the configuration reads secrets from (its `{ env: NAME }` sources, every variable
 * an interpolated one such as `DB_PASSWORD_${var.env}` can become, its state URL's password). `--pass-env NAME` lets one of them through on purpose.
 */
import { secretEnvironmentNames } from '../../config/index.js';
import { AbortError } from '../../errors.js';

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const isCplaneOwn = (name: string) => name.startsWith('CPLANE_');

/** `--pass-env NAME` (repeatable): the withheld variables the command is given anyway. */
export function passEnvNames(values: Record<string, unknown>): string[] {
  const given = Array.isArray(values['pass-env']) ? (values['pass-env'] as string[]) : [];
  for (const name of given) {
    if (!VARIABLE_NAME.test(name))
      throw new AbortError(
        `--pass-env ${JSON.stringify(name)}: expected a variable name (letters, digits, _).`,
        'For example: --pass-env DATABASE_URL',
      );
  }
  return given;
}

export interface ChildEnvironmentInput {
  /** The parent's environment (the command's context). */
  parent: NodeJS.ProcessEnv;
  /** The configuration folder (`[dir]`, relative to `cwd`), whose secret sources are withheld (none when it holds no configuration). */
  dir: string;
  cwd: string;
  /** Withheld variables passed on anyway (`--pass-env`). */
  passEnv: readonly string[];
  /** The values `--env` asked for: set last, over anything of the same name. */
  values: Record<string, string>;
}

export async function childEnvironment(input: ChildEnvironmentInput): Promise<NodeJS.ProcessEnv> {
  const secretSources = await secretEnvironmentNames(input.dir, input.cwd);
  const passed = new Set(input.passEnv);
  const kept = Object.entries(input.parent).filter(([name]) => passed.has(name) || !(isCplaneOwn(name) || secretSources.has(name)));
  return { ...Object.fromEntries(kept), ...input.values };
}
