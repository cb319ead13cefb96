/**
 * The `directory:` block: principals no API operation lists (users and groups, with the X25519 public key a
 * record's data key is wrapped for, as SOPS takes age recipients; roles by id), gathered from every file into
 * one `Directory` that kinds read by name. It is configuration data, not a resource kind: nothing in it is
 * created or observed. The schema has checked the shape; here the public keys are checked (base64 of exactly
 * 32 bytes) and a name given twice across files is reported, each at its file:line:col.
 */
import { diagnosticAt, type DiagnosticSink } from '../diagnostics.js';
import { offsetIn, positionIn, textStart } from '../files/source-file.js';
import { didYouMean } from '../../text/suggest.js';
import type { SourceFile } from '../files/source-file.js';
import type { ConfigFile } from '../files/config-file.js';
import type { Directory, DirectoryPrincipal, DirectorySection, SourceRange } from '../types.js';

/** How diagnostics name an entry of each section: `user "dana"`. */
const nouns: Record<DirectorySection, string> = { users: 'user', groups: 'group', roles: 'role' };

export const emptyDirectory = (): Directory => ({ users: {}, groups: {}, roles: {}, serviceAccounts: {} });

/** The 32 bytes of an X25519 public key written as base64, or a sentence saying what is wrong with it. */
export function publicKeyProblem(text: string): string | undefined {
  const bytes = Buffer.from(text, 'base64');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text) || text.length % 4 !== 0) return 'is not base64';
  return bytes.length === 32 ? undefined : `decodes to ${bytes.length} bytes, not 32`;
}

export function collectDirectory(files: readonly { file: SourceFile; config: ConfigFile }[], sink: DiagnosticSink): Directory {
  const directory = emptyDirectory();
  const declaredAt = new Map<string, SourceRange>();
  // A group's members name users, which any file may declare: checked once every file is read.
  const members: { file: SourceFile; at: number; user: string }[] = [];
  for (const { file, config } of files) {
    const block = config.directory;
    if (!block) continue;
    for (const section of ['users', 'groups', 'roles'] as const) {
      const entries: Record<string, { id: string; publicKey?: string; members?: string[] }> = block[section] ?? {};
      for (const [name, entry] of Object.entries(entries)) {
        const keyAt = offsetIn(file, entries, name);
        const earlier = declaredAt.get(`${section}/${name}`);
        if (earlier) {
          sink.push(
            diagnosticAt(file, keyAt, {
              code: 'duplicate_directory_entry',
              summary: `The ${nouns[section]} "${name}" is declared twice in directory.${section}: in ${earlier.file}:${earlier.line}:${earlier.col} and again here`,
              detail: 'Declare each user, group and role once across all files of the configuration.',
              end: keyAt + name.length,
            }),
          );
          continue;
        }
        const { line, col } = file.lines.linePos(keyAt);
        declaredAt.set(`${section}/${name}`, { file: file.display, line, col });
        if (entry.publicKey !== undefined) {
          // A key from a variable with no value yet (`cplane validate`, a deployment's own values) is checked once it has one.
          const problem = /\$\{\s*var\./.test(entry.publicKey) ? undefined : publicKeyProblem(entry.publicKey);
          if (problem) {
            const at = positionIn(file, entry, 'publicKey')?.value ?? [keyAt, keyAt + 1];
            sink.push(
              diagnosticAt(file, at[0], {
                code: 'invalid_public_key',
                summary: `The publicKey of ${nouns[section]} "${name}" ${problem}: it must be base64 of an X25519 public key of exactly 32 bytes`,
                detail: 'Copy the key as the dashboard (or `cplane emulator --print-fixtures`) shows it: 44 characters ending in "=".',
                end: at[1],
              }),
            );
            continue;
          }
          const principal: DirectoryPrincipal = { id: entry.id, publicKey: entry.publicKey, source: { file: file.display, line, col } };
          if (entry.members !== undefined) {
            principal.members = entry.members.map((user, i) => {
              const written = positionIn(file, entry.members, i)?.value[0];
              const at = written === undefined ? keyAt : textStart(file, written);
              members.push({ file, at, user });
              return { user, source: { file: file.display, ...file.lines.linePos(at) } };
            });
          }
          (directory[section] as Record<string, DirectoryPrincipal>)[name] = principal;
        } else {
          directory.roles[name] = { id: entry.id };
        }
      }
    }
    const pins = block.serviceAccounts ?? {};
    for (const [name, pin] of Object.entries(pins)) {
      const keyAt = offsetIn(file, pins, name);
      const earlier = directory.serviceAccounts[name];
      if (earlier) {
        sink.push(
          diagnosticAt(file, keyAt, {
            code: 'duplicate_directory_entry',
            summary: `The Service Account "${name}" is pinned twice in directory.serviceAccounts: in ${earlier.source.file}:${earlier.source.line}:${earlier.source.col} and again here`,
            detail: "Pin each Service Account's key once across all files of the configuration.",
            end: keyAt + name.length,
          }),
        );
        continue;
      }
      const at = positionIn(file, pin, 'keyId')?.value[0] ?? keyAt;
      const { line, col } = file.lines.linePos(at);
      directory.serviceAccounts[name] = { keyId: pin.keyId, source: { file: file.display, line, col } };
    }
  }
  for (const { file, at, user } of members) {
    if (!Object.hasOwn(directory.users, user))
      sink.push(diagnosticAt(file, at, { ...undeclaredInDirectory('users', user, directory), end: at + user.length }));
  }
  return directory;
}

/** The diagnostic for a name that `section` of the directory does not declare, with the closest declared names. */
export function undeclaredInDirectory(
  section: DirectorySection,
  name: string,
  directory: Directory,
): { code: string; summary: string; detail: string } {
  const known = Object.keys(directory[section]);
  return {
    code: 'unknown_directory_name',
    summary: `Unknown ${nouns[section]} "${name}": it is not declared in directory.${section}${didYouMean(name, known)}`,
    detail: known.length
      ? `Declared ${section}: ${known.slice(0, 10).join(', ')}${known.length > 10 ? ', ...' : ''}.`
      : `Declare it with its id${section === 'roles' ? '' : ' and public key'}: directory: { ${section}: { ${name}: { id: …${section === 'roles' ? '' : ', publicKey: …'} } } }.`,
  };
}
