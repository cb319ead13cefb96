// An application reading its secrets by name (docs/sdk.md): two settings, the reader manifest (public, committed
// with the application) and CPLANE_READER (its one secret), and no record id, base URL or key of its own.
//
//   CPLANE_MANIFEST=cplane-reader.json CPLANE_READER=cplane-reader-1.… CPLANE_DEPLOYMENT=prod \
//   node read-by-name.mjs payments/stripe-key core/ci-token
//
// With --watch it keeps running and says when a value changes (a token renewed by `cplane reconcile`, a rotation),
// with no restart.
import { createReader } from '@cplane/sdk';

const watch = process.argv.includes('--watch');
const names = process.argv.slice(2).filter((arg) => arg !== '--watch');
const reader = createReader();
try {
  for (const name of names) {
    const { value, version } = await reader.read(name);
    // Use the secret; never log it. Here we only say that it arrived.
    console.log(`read ${name} in ${reader.deployment}: version ${version} (${value.length} characters)`);
  }
} catch (error) {
  // Every refusal has a stable code (SECRET_NOT_IN_MANIFEST, WRAP_NOT_GRANTED, …) and names the secret.
  console.error(`cannot read: ${error.code ?? error.name}: ${error.message}`);
  process.exitCode = 1;
}
if (watch && !process.exitCode) {
  for (const name of names) {
    reader.watch(name, (value, { version }) => console.log(`${name} is now version ${version} (${value.length} characters)`), {
      intervalMs: Number(process.env.WATCH_INTERVAL_MS ?? 30_000),
      onError: (error) => console.error(`kept the last good value of ${name}: ${error.code ?? error.name}`),
    });
  }
  process.once('SIGTERM', () => void reader.close());
} else {
  await reader.close();
}
