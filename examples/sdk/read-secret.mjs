// An application reading its secret with its Service Account credential, through the `cplane/sdk` library.
// The value is decrypted here, in the application's memory; the API only ever sees ciphertext.
//
// It accepts the value only from the writer it pins: cplane's writer key, which `cplane writer-key` prints.
//
//   CPLANE_BASE_URL=https://api.example.com CPLANE_TOKEN=sk-svc-sa-... CPLANE_ACCOUNT=<account id> \
//   CPLANE_SA_KEY=<the Service Account's private key, base64> CPLANE_WRITER_KEY=<cplane writer-key> \
//   RECORD_ID=<record id> node examples/sdk/read-secret.mjs
import { createClient, decodeReaderKey, readSecret } from 'cplane/sdk';

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
} finally {
  await client.close();
}
