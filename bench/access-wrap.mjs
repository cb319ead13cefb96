// Benchmark: the time to wrap a record's data key for one reader (HPKE base mode, X25519 / HKDF-SHA256 /
// ChaCha20-Poly1305, src/crypto/data-key-wrap.ts) and to unwrap it, against cplane's own state-key wrap of a
// value (XChaCha20-Poly1305, src/crypto/record-value.ts) as the yardstick. Printed, never asserted. A wrap costs
// two X25519 scalar multiplications (the ephemeral key and the shared secret), an unwrap one or two.
import { randomBytes } from 'node:crypto';
import { unwrapDataKey, wrapDataKey } from '../dist/crypto/data-key-wrap.js';
import { generateKeyPair, recipientOf } from '../dist/crypto/hpke.js';
import { encryptRecordValue, recordKek } from '../dist/crypto/record-value.js';

const N = 2000;
const reader = generateKeyPair();
const recordId = '1b000000-0000-4000-8000-000000000001';
const recipientId = '0e000000-0000-4000-8000-000000000001';
const dataKey = new Uint8Array(randomBytes(32));
const kek = recordKek(randomBytes(32));

function time(label, fn) {
  for (let i = 0; i < 50; i++) fn(i); // warm-up
  const start = process.hrtime.bigint();
  for (let i = 0; i < N; i++) fn(i);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  console.log(`${label.padEnd(48)} ${(ms / N).toFixed(3)} ms each  (${Math.round((N / ms) * 1000)}/s over ${N})`);
  return ms / N;
}

const wrapped = wrapDataKey({ dataKey, recipientPublicKey: reader.publicKey, recordId, version: 1, recipientId });
const own = time('state-key wrap + value encryption (today)', () => encryptRecordValue(kek, 'sk_live_bench_value'));
const wrap = time('HPKE wrap for one reader', (i) => wrapDataKey({ dataKey, recipientPublicKey: reader.publicKey, recordId, version: 1 + (i % 5), recipientId }));
const unwrap = time('HPKE unwrap by the reader (raw private key)', () => unwrapDataKey({ wrappedDek: wrapped, recipientPrivateKey: reader.privateKey, recordId, version: 1, recipientId }));
const ready = recipientOf(reader.privateKey);
time('HPKE unwrap, key imported once (emulator check)', () => unwrapDataKey({ wrappedDek: wrapped, recipientPrivateKey: ready, recordId, version: 1, recipientId }));
console.log(`wrap / state-key wrap: ${(wrap / own).toFixed(1)}x; unwrap / wrap: ${(unwrap / wrap).toFixed(2)}x`);
console.log(`1,000 records x 3 readers: ${((wrap * 3000) / 1000).toFixed(2)} s of wrapping on one core`);
