/**
 * The plan-time warning about secret values that are short or read like a word: the redactor hides every
 * secret wherever it appears in printed text, so `checkout` as a secret would blank out `checkout` in
 * messages and values where it stands as a word (names and addresses are never redacted). Only the source is
 * named, never the value.
 */
import { safeName, secrets } from '../text/safe-text.js';

export function weakSecretWarnings(): string[] {
  return secrets.weakSources().map(
    (source) =>
      `Warning: the secret from ${safeName(source)} is short or reads like an ordinary word, so it can match ordinary text: messages and values show (sensitive) wherever it stands as a word of its own (names and addresses never do). Use a long random value (for example \`openssl rand -base64 32\`).`,
  );
}
