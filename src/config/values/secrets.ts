/**
 * Resolving a secret source to its value, at the moment a write needs it.
 * Errors name the source (the variable or the path), never a value.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isWeakSecret, registerSecret } from '../../text/safe-text.js';
import type { SecretSource } from '../types.js';

/** How a source is shown to people: `env OPENAI_API_KEY`, `file /abs/path`, `generate (32 characters)`. */
export function describeSecretSource(source: SecretSource): string {
  if ('env' in source) return `env ${source.env}`;
  if ('file' in source) return `file ${source.file}`;
  if ('output' in source) return `${source.output.name} of ${source.output.address}`;
  return `generate (${source.generate.length} characters)`;
}

/** The source's value, registered with the run's redactor so no printed text can show it. */
export async function resolveSecret(source: SecretSource, env: NodeJS.ProcessEnv): Promise<string> {
  const value = await readSecret(source, env);
  registerSecret(value, describeSecretSource(source));
  return value;
}

async function readSecret(source: SecretSource, env: NodeJS.ProcessEnv): Promise<string> {
  if ('env' in source) {
    const value = env[source.env];
    if (value === undefined || value === '')
      throw new Error(`Secret source "env ${source.env}": environment variable ${source.env} is not set`);
    return value;
  }
  if ('file' in source) {
    let text: string;
    try {
      text = await readFile(source.file, 'utf8');
    } catch (error) {
      throw new Error(`Secret source "file ${source.file}" cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    // Editors add a final newline; it is never part of a key.
    const value = text.replace(/\r?\n$/, '');
    if (value === '') throw new Error(`Secret source "file ${source.file}" is empty`);
    return value;
  }
  if ('output' in source) {
    // Sealed in state by another step: the planner and the apply's key ring open it there, never from here.
    throw new Error(`Secret source "${describeSecretSource(source)}" is read from the state, not from the environment`);
  }
  return generateSecret(source.generate.length);
}

/**
 * A random value in the format of the `generate` source: base64url, `length` characters. One of letters only (about
 * 4 % of 16-character draws) reads like a word to the redactor (text/safe-text.ts `isWeakSecret`), which would then
 * hide it only where it stands alone and warn that it is weak: such a draw is drawn again.
 */
export function generateSecret(length: number): string {
  for (;;) {
    const value = randomBytes(Math.ceil((length * 3) / 4))
      .toString('base64url')
      .slice(0, length);
    if (!isWeakSecret(value)) return value;
  }
}
