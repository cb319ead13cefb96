/**
 * `cplane writer-key [dir] [--json]`: cplane's writer public key and its id, derived from the state key
 * (@cplane/sdk: packages/sdk/src/writer-key.ts). Every reader's wrapper cplane makes is sealed with it (HPKE auth mode), so an
 * application that pins it (`cplane read --writer-key`, CPLANE_WRITER_KEY, the SDK's `writerKeys`) accepts
 * no value the API server made up. Nothing secret is printed; the state is only read.
 */
import type { CommandModule } from '../../session/command-context.js';
import { openStateFor } from '../../session/workspace.js';
import { jsonText } from '../../text/json-text.js';

export const writerKeyCommand: CommandModule = {
  async run(ctx) {
    const store = await openStateFor(ctx, ctx.positionals[0], { lock: false, command: 'writer-key' });
    try {
      const { publicKey, keyId } = await store.crypto.writerKey();
      if (ctx.values.json) {
        ctx.stdout.write(`${jsonText({ publicKey, keyId, account: store.data.account })}\n`);
        return 0;
      }
      // The key alone on stdout, so it can be captured: `CPLANE_WRITER_KEY=$(cplane writer-key)`.
      ctx.stdout.write(`${publicKey}\n`);
      ctx.stderr.write(
        `cplane's writer key for account ${store.data.account} (${keyId}). Readers pin it: --writer-key, CPLANE_WRITER_KEY, or writerKeys in the SDK.\n`,
      );
      return 0;
    } finally {
      await store.close();
    }
  },
};
