// HPKE against the published test vectors of RFC 9180 for the one suite cplane uses, DHKEM(X25519, HKDF-SHA256),
// HKDF-SHA256, ChaCha20Poly1305: A.2.1 (base mode, the first wrapper format) and A.2.3 (auth mode, the wrappers
// cplane makes now), every sequence number and every exported value given there. The vectors are copied from the
// RFC's source (cfrg/draft-irtf-cfrg-hpke) into rfc9180-a2-vectors.json.
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
