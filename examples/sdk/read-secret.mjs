// An application reading its secret with its Service Account credential, through @cplane/sdk
// (`npm install @cplane/sdk`: one dependency, no cplane CLI). The value is decrypted here, in the
// application's memory; the API only ever sees ciphertext.
//
// It accepts the value only from the writer it pins: the public writer key of the configuration that
// writes the secret, which its owner hands out, and only in the account it names (CPLANE_ACCOUNT): a value
// written for another account is refused.
//
//   CPLANE_BASE_URL=https://api.example.com CPLANE_TOKEN=sk-svc-sa-... CPLANE_ACCOUNT=<account id> \
//   CPLANE_SA_KEY=<the Service Account's private key, base64> CPLANE_WRITER_KEY=<the writer key> \
//   RECORD_ID=<record id> node read-secret.mjs
import { createClient, decodeReaderKey, readSecret } from '@cplane/sdk';

const client = createClient({
  baseUrl: process.env.CPLANE_BASE_URL,
  token: process.env.CPLANE_TOKEN,
  accountId: process.env.CPLANE_ACCOUNT,
});
try {
  const stripeKey = await readSecret(client, {
    recordId: process.env.RECORD_ID,
    privateKey: decodeReaderKey(process.env.CPLANE_SA_KEY ?? '', 'CPLANE_SA_KEY'),
    writerKeys: (process.env.CPLANE_WRITER_KEY ?? '').split(','),
  });
  // Use the secret; never log it. Here we only say that it arrived.
  console.log(`read the secret (${stripeKey.length} characters)`);
} catch (error) {
  // Every refusal has a stable code (WRAP_NOT_GRANTED, WRAP_UNTRUSTED_WRITER, ACCOUNT_REQUIRED, …; docs/sdk.md)
  // and a message that says what is missing and who must act. Neither holds the secret or a key.
  console.error(`cannot read the secret: ${error.code ?? error.name}: ${error.message}`);
  process.exitCode = 1;
} finally {
  await client.close();
}
