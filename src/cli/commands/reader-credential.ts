/**
 * `cplane reader-credential --token-env NAME (--key-file FILE | < KEY)`: the one secret an application holds,
 * `CPLANE_READER` (@cplane/sdk: packages/sdk/src/reader-credential.ts), made from a Service Account's token
 * (read from the environment variable NAME, never from the command line) and its private key (a file of mode
 * 0600, or base64 on stdin). It is printed alone on stdout, to be piped into the application's secret store;
 * nothing else of the run ever shows it.
 */
import { text } from 'node:stream/consumers';
import { decodeReaderKey, encodeReaderCredential, readReaderKeyFile, ReaderCredentialError, ReaderKeyError } from '@cplane/sdk';
import { registerSecret } from '../../text/safe-text.js';
import type { CommandContext, CommandModule } from '../../session/command-context.js';
import { AbortError } from '../../errors.js';

const usage = 'reader-credential --token-env NAME [--key-file FILE]';

async function privateKey(ctx: CommandContext): Promise<Uint8Array> {
  const file = typeof ctx.values['key-file'] === 'string' ? ctx.values['key-file'] : undefined;
  try {
    if (file) return readReaderKeyFile(file);
    if (ctx.stdin.isTTY)
      throw new AbortError('No private key: give --key-file FILE, or pipe the key (base64) on stdin.', `Usage: cplane ${usage}`);
    const key = (await text(ctx.stdin)).trim();
    registerSecret(key);
    return decodeReaderKey(key, 'The key on stdin');
  } catch (error) {
    if (error instanceof ReaderKeyError) throw new AbortError(error.message, error.hint);
    throw error;
  }
}

export const readerCredentialCommand: CommandModule = {
  async run(ctx) {
    if (ctx.positionals.length > 0) throw new AbortError(`Unexpected arguments: ${ctx.positionals.join(' ')}.`, `Usage: cplane ${usage}`);
    const name = ctx.values['token-env'];
    if (typeof name !== 'string' || name === '')
      throw new AbortError(
        'Say which environment variable holds the Service Account token: --token-env NAME.',
        `Usage: cplane ${usage} (the token is never given on the command line, where the process list shows it)`,
      );
    const token = ctx.env[name];
    if (!token)
      throw new AbortError(
        `The environment variable ${name} (--token-env) is not set.`,
        "Set it to the Service Account's token (sk-svc-sa-…), as issued with the Service Account.",
      );
    registerSecret(token);
    const key = await privateKey(ctx);
    registerSecret(Buffer.from(key).toString('base64'));
    let credential: string;
    try {
      credential = encodeReaderCredential({ token, privateKey: key });
    } catch (error) {
      if (error instanceof ReaderCredentialError)
        throw new AbortError(`${error.code}: ${error.message}`, `Check ${name}: it must hold the Service Account's token (sk-svc-sa-…).`);
      throw error;
    }
    // Alone on stdout, so it can be piped: `cplane reader-credential ... | gh secret set CPLANE_READER`.
    ctx.stdout.write(`${credential}\n`);
    ctx.stderr.write(
      "The reader credential is on stdout: give it to the application as CPLANE_READER, a secret (it holds the Service Account's token and private key).\n",
    );
    return 0;
  },
};
