// HPKE against the published test vectors of RFC 9180 for the one suite cplane uses, DHKEM(X25519, HKDF-SHA256),
// HKDF-SHA256, ChaCha20Poly1305: A.2.1 (base mode, the first wrapper format) and A.2.3 (auth mode, the wrappers
// cplane makes now), every sequence number and every exported value given there. The vectors are copied from the
// RFC's source (cfrg/draft-irtf-cfrg-hpke) into rfc9180-a2-vectors.json.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  deriveKeyPair,
  generateKeyPair,
  HpkeOpenError,
  open,
  openBase,
  recipientOf,
  seal,
  setupRecipient,
  setupSender,
} from '@cplane/sdk/internal/hpke';

interface Vector {
  setup: Record<string, string>;
  Encryptions: { sequence_number: string; pt: string; aad: string; nonce: string; ct: string }[];
  'Exported Values': { exporter_context: string; L: string; exported_value: string }[];
}
const vectors = JSON.parse(readFileSync(new URL('./rfc9180-a2-vectors.json', import.meta.url), 'utf8')) as Record<string, Vector>;
const hex = (text: string) => new Uint8Array(Buffer.from(text, 'hex'));
const toHex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe.each([
  ['A.2.1 base', 'base'],
  ['A.2.3 auth', 'auth'],
] as const)('HPKE RFC 9180 %s', (name, mode) => {
  const v = vectors[name]!;
  const s = v.setup;
  const sender = mode === 'auth' ? recipientOf(hex(s.skSm!)) : undefined;
  const senderContext = () =>
    setupSender({
      recipientPublicKey: hex(s.pkRm!),
      info: hex(s.info!),
      ephemeral: deriveKeyPair(hex(s.ikmE!)),
      ...(sender ? { sender } : {}),
    });
  const recipientContext = () =>
    setupRecipient({
      recipient: hex(s.skRm!),
      enc: hex(s.enc!),
      info: hex(s.info!),
      ...(mode === 'auth' ? { senderPublicKey: hex(s.pkSm!) } : {}),
    });

  it('is the mode the vector says', () => {
    expect(s.mode).toBe(mode === 'base' ? '0' : '2');
    expect([s.kem_id, s.kdf_id, s.aead_id]).toEqual(['32', '1', '3']);
  });

  it('derives every key pair of the vector from its ikm', () => {
    for (const who of mode === 'auth' ? ['E', 'R', 'S'] : ['E', 'R']) {
      const pair = deriveKeyPair(hex(s[`ikm${who}`]!));
      expect(toHex(pair.privateKey)).toBe(s[`sk${who}m`]);
      expect(toHex(pair.publicKey)).toBe(s[`pk${who}m`]);
    }
  });

  it('encapsulates, and decapsulates, to the shared secret, key, base nonce and exporter secret of the vector', () => {
    for (const ctx of [senderContext(), recipientContext()]) {
      expect(toHex(ctx.enc)).toBe(s.enc);
      expect(toHex(ctx.sharedSecret)).toBe(s.shared_secret);
      expect(toHex(ctx.key)).toBe(s.key);
      expect(toHex(ctx.baseNonce)).toBe(s.base_nonce);
      expect(toHex(ctx.exporterSecret)).toBe(s.exporter_secret);
    }
  });

  it('seals and opens every sequence number of the vector (0, 1, 2, 4, 255, 256)', () => {
    expect(v.Encryptions.map((e) => Number(e.sequence_number))).toEqual([0, 1, 2, 4, 255, 256]);
    const sealer = senderContext();
    const opener = recipientContext();
    let next = 0;
    for (const e of v.Encryptions) {
      // Messages between the listed ones are sealed and opened too: the sequence number is the context's count.
      for (; next < Number(e.sequence_number); next++) opener.open(hex(''), sealer.seal(hex(''), hex('')));
      expect(toHex(sealer.seal(hex(e.aad), hex(e.pt)))).toBe(e.ct);
      expect(toHex(opener.open(hex(e.aad), hex(e.ct)))).toBe(e.pt);
      next++;
    }
  });

  it('exports every value of the vector, from both sides', () => {
    expect(v['Exported Values']).toHaveLength(3);
    for (const e of v['Exported Values']) {
      expect(toHex(senderContext().export(hex(e.exporter_context), Number(e.L)))).toBe(e.exported_value);
      expect(toHex(recipientContext().export(hex(e.exporter_context), Number(e.L)))).toBe(e.exported_value);
    }
  });

  it('refuses other associated data, another recipient and altered bytes', () => {
    const first = v.Encryptions[0]!;
    const sealed = { enc: hex(s.enc!), ct: hex(first.ct) };
    const request = { info: hex(s.info!), ...(mode === 'auth' ? { senderPublicKey: hex(s.pkSm!) } : {}) };
    expect(toHex(open({ ...request, recipient: hex(s.skRm!), sealed, aad: hex(first.aad) }))).toBe(first.pt);
    expect(() => open({ ...request, recipient: hex(s.skRm!), sealed, aad: hex('436f756e742d31') })).toThrow(HpkeOpenError);
    expect(() => open({ ...request, recipient: generateKeyPair().privateKey, sealed, aad: hex(first.aad) })).toThrow(HpkeOpenError);
    const altered = { enc: sealed.enc, ct: Uint8Array.from(sealed.ct, (b, i) => (i === 0 ? b ^ 1 : b)) };
    expect(() => open({ ...request, recipient: hex(s.skRm!), sealed: altered, aad: hex(first.aad) })).toThrow(HpkeOpenError);
  });
});

describe('HPKE auth mode: the sender is authenticated', () => {
  const s = vectors['A.2.3 auth']!.setup;
  const first = vectors['A.2.3 auth']!.Encryptions[0]!;
  const sealed = { enc: hex(s.enc!), ct: hex(first.ct) };

  it('does not open as base mode, nor with another sender public key', () => {
    expect(() => openBase(hex(s.skRm!), sealed, hex(s.info!), hex(first.aad))).toThrow(HpkeOpenError);
    expect(() =>
      open({ recipient: hex(s.skRm!), sealed, info: hex(s.info!), aad: hex(first.aad), senderPublicKey: generateKeyPair().publicKey }),
    ).toThrow(HpkeOpenError);
  });

  it('a message sealed by a forger with the recipient public key alone does not open as from the sender', () => {
    const forged = seal({
      recipientPublicKey: hex(s.pkRm!),
      info: hex(s.info!),
      aad: hex(first.aad),
      plaintext: hex(first.pt),
      sender: recipientOf(generateKeyPair().privateKey),
    });
    expect(() =>
      open({ recipient: hex(s.skRm!), sealed: forged, info: hex(s.info!), aad: hex(first.aad), senderPublicKey: hex(s.pkSm!) }),
    ).toThrow(HpkeOpenError);
  });

  it('refuses a small-order public key (an all-zero shared secret)', () => {
    expect(() => seal({ recipientPublicKey: new Uint8Array(32), info: hex(s.info!), aad: hex(''), plaintext: hex('00') })).toThrow(
      /small-order|zero/,
    );
  });
});

describe('HPKE key pairs: fresh keys without exporting a KeyObject', () => {
  it('a generated key pair opens what is sealed to its public key, and two are never the same', () => {
    const pair = generateKeyPair();
    expect(generateKeyPair().privateKey).not.toEqual(pair.privateKey);
    expect(recipientOf(pair.privateKey).publicKey).toEqual(pair.publicKey);
    const sealed = seal({ recipientPublicKey: pair.publicKey, info: hex('01'), aad: hex('02'), plaintext: hex('c0ffee') });
    expect(open({ recipient: pair.privateKey, sealed, info: hex('01'), aad: hex('02') })).toEqual(hex('c0ffee'));
  });

  // Node 20 can deadlock in KeyObject#export: it holds the key's mutex while it allocates, and a garbage collection
  // that frees the key's generation job waits for that mutex (an apply of 100 records hung on a busy machine). A
  // young generation of 1 MB collects often enough that exporting fresh keys hangs within seconds; the SDK's own
  // sealing, built, must run through. The timeout only detects a hang: the loop takes a few seconds.
  it('seals 20,000 times under constant garbage collection without hanging', async () => {
    const hpke = new URL('../../packages/sdk/dist/hpke.js', import.meta.url).href;
    // Keeping the last 500 results promotes objects, so full collections (which free the jobs) run too.
    const script = `const { seal } = await import(${JSON.stringify(hpke)});
const to = new Uint8Array(32).fill(7);
const kept = [];
for (let i = 0; i < 20000; i++) {
  kept.push(seal({ recipientPublicKey: to, info: new Uint8Array(1), aad: new Uint8Array(1), plaintext: new Uint8Array(64) }));
  if (kept.length > 500) kept.length = 0;
}
console.log('sealed');`;
    const child = spawn(
      process.execPath,
      ['--semi-space-growth-factor=1', '--max-semi-space-size=1', '--input-type=module', '-e', script],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const hung = setTimeout(() => child.kill('SIGKILL'), 90_000);
    const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
    clearTimeout(hung);
    expect({ code, signal, output: output.trim() }).toEqual({ code: 0, signal: null, output: 'sealed' });
  }, 120_000);
});
