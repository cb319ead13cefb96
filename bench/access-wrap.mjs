// Benchmark: the time to wrap a record's data key for one reader (HPKE auth mode under cplane's writer key, X25519 /
// HKDF-SHA256 / ChaCha20-Poly1305, packages/sdk/src/data-key-wrap.ts) and to unwrap it, against cplane's own state-key
// wrap of a value (XChaCha20-Poly1305, src/crypto/record-value.ts) as the yardstick. Printed, never asserted. A wrap
// costs two X25519 scalar multiplications (the ephemeral key and its shared secret; the static one is kept per
// reader), an unwrap two or three.
import { randomBytes } from 'node:crypto';
import { unwrapDataKey, wrapDataKey } from '@cplane/sdk/internal/data-key-wrap';
import { generateKeyPair, recipientOf } from '@cplane/sdk/internal/hpke';
import { recordKek, sealRecordValue } from '../dist/crypto/record-value.js';

const N = 2000;
const reader = generateKeyPair();
const recordId = '1b000000-0000-4000-8000-000000000001';
const recipientId = '0e000000-0000-4000-8000-000000000001';
const dataKey = new Uint8Array(randomBytes(32));
const kek = recordKek(randomBytes(32));
const writerPair = generateKeyPair();
const writer = recipientOf(writerPair.privateKey);
const accountId = '0a000000-0000-4000-8000-000000000001';
const valueDigest = 'ab'.repeat(32);
const place = { accountId, recordId, version: 1 };

function time(label, fn) {
  for (let i = 0; i < 50; i++) fn(i); // warm-up
  const start = process.hrtime.bigint();
  for (let i = 0; i < N; i++) fn(i);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  console.log(`${label.padEnd(48)} ${(ms / N).toFixed(3)} ms each  (${Math.round((N / ms) * 1000)}/s over ${N})`);
  return ms / N;
}

const request = (version) => ({
  dataKey,
  recipientPublicKey: reader.publicKey,
  accountId,
  recordId,
  version,
  recipientId,
  valueDigest,
  writer,
  wrappedAt: new Date(),
});
const wrapped = wrapDataKey(request(1));
const unwrapping = (recipientPrivateKey) => ({
  wrappedDek: wrapped,
  recipientPrivateKey,
  recordId,
  version: 1,
  recipientId,
  valueDigest,
  trustedWriters: [writerPair.publicKey],
});
const own = time('state-key wrap + value encryption (today)', () => sealRecordValue(kek, 'sk_live_bench_value', place));
const wrap = time('HPKE auth wrap for one reader', (i) => wrapDataKey(request(1 + (i % 5))));
const unwrap = time('HPKE unwrap by the reader (raw private key)', () => unwrapDataKey(unwrapping(reader.privateKey)));
const ready = recipientOf(reader.privateKey);
time('HPKE unwrap, key imported once (emulator check)', () => unwrapDataKey(unwrapping(ready)));
console.log(`wrap / state-key wrap: ${(wrap / own).toFixed(1)}x; unwrap / wrap: ${(unwrap / wrap).toFixed(2)}x`);
console.log(`1,000 records x 3 readers: ${((wrap * 3000) / 1000).toFixed(2)} s of wrapping on one core`);
