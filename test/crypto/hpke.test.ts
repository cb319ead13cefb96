// HPKE against the published test vector of RFC 9180, appendix A.2.1: DHKEM(X25519, HKDF-SHA256), HKDF-SHA256,
// ChaCha20Poly1305, base mode (copied from the RFC's source, cfrg/draft-irtf-cfrg-hpke, section
// "DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305" > "Base Setup Information", sequence number 0).
import { describe, expect, it } from 'vitest';
import { deriveKeyPair, generateKeyPair, HpkeOpenError, openBase, sealBase, setupBaseSender } from '../../src/crypto/hpke.js';

const hex = (text: string) => new Uint8Array(Buffer.from(text.replace(/\s+/g, ''), 'hex'));
const toHex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

const A21 = {
  info: '4f6465206f6e2061204772656369616e2055726e',
  ikmE: '909a9b35d3dc4713a5e72a4da274b55d3d3821a37e5d099e74a647db583a904b',
  pkEm: '1afa08d3dec047a643885163f1180476fa7ddb54c6a8029ea33f95796bf2ac4a',
  skEm: 'f4ec9b33b792c372c1d2c2063507b684ef925b8c75a42dbcbf57d63ccd381600',
  ikmR: '1ac01f181fdf9f352797655161c58b75c656a6cc2716dcb66372da835542e1df',
  pkRm: '4310ee97d88cc1f088a5576c77ab0cf5c3ac797f3d95139c6c84b5429c59662a',
  skRm: '8057991eef8f1f1af18f4a9491d16a1ce333f695d4db8e38da75975c4478e0fb',
  enc: '1afa08d3dec047a643885163f1180476fa7ddb54c6a8029ea33f95796bf2ac4a',
  sharedSecret: '0bbe78490412b4bbea4812666f7916932b828bba79942424abb65244930d69a7',
  key: 'ad2744de8e17f4ebba575b3f5f5a8fa1f69c2a07f6e7500bc60ca6e3e3ec1c91',
  baseNonce: '5c4d98150661b848853b547f',
  pt: '4265617574792069732074727574682c20747275746820626561757479',
  aad: '436f756e742d30',
  ct: '1c5250d8034ec2b784ba2cfd69dbdb8af406cfe3ff938e131f0def8c8b60b4db 21993c62ce81883d2dd1b51a28',
};

describe('HPKE base mode, RFC 9180 A.2.1', () => {
  it('derives the sender and recipient key pairs from their ikm', () => {
    expect(toHex(deriveKeyPair(hex(A21.ikmE)).privateKey)).toBe(A21.skEm);
    expect(toHex(deriveKeyPair(hex(A21.ikmE)).publicKey)).toBe(A21.pkEm);
    expect(toHex(deriveKeyPair(hex(A21.ikmR)).privateKey)).toBe(A21.skRm);
    expect(toHex(deriveKeyPair(hex(A21.ikmR)).publicKey)).toBe(A21.pkRm);
  });

  it('encapsulates to the shared secret, key and base nonce of the vector', () => {
    const ctx = setupBaseSender(hex(A21.pkRm), hex(A21.info), deriveKeyPair(hex(A21.ikmE)));
    expect(toHex(ctx.enc)).toBe(A21.enc);
    expect(toHex(ctx.sharedSecret)).toBe(A21.sharedSecret);
    expect(toHex(ctx.key)).toBe(A21.key);
    expect(toHex(ctx.baseNonce)).toBe(A21.baseNonce);
  });

  it('seals the first message to the ciphertext of the vector, and opens it with skRm', () => {
    const sealed = sealBase(hex(A21.pkRm), hex(A21.info), hex(A21.aad), hex(A21.pt), deriveKeyPair(hex(A21.ikmE)));
    expect(toHex(sealed.ct)).toBe(A21.ct.replace(/\s+/g, ''));
    expect(toHex(openBase(hex(A21.skRm), { enc: hex(A21.enc), ct: hex(A21.ct) }, hex(A21.info), hex(A21.aad)))).toBe(A21.pt);
  });

  it('refuses other associated data, another recipient and altered bytes', () => {
    const sealed = { enc: hex(A21.enc), ct: hex(A21.ct) };
    expect(() => openBase(hex(A21.skRm), sealed, hex(A21.info), hex('436f756e742d31'))).toThrow(HpkeOpenError);
    expect(() => openBase(generateKeyPair().privateKey, sealed, hex(A21.info), hex(A21.aad))).toThrow(HpkeOpenError);
    const altered = { enc: sealed.enc, ct: Uint8Array.from(sealed.ct, (b, i) => (i === 0 ? b ^ 1 : b)) };
    expect(() => openBase(hex(A21.skRm), altered, hex(A21.info), hex(A21.aad))).toThrow(HpkeOpenError);
  });

  it('refuses a small-order public key (an all-zero shared secret)', () => {
    expect(() => sealBase(new Uint8Array(32), hex(A21.info), hex(A21.aad), hex(A21.pt))).toThrow(/small-order|zero/);
  });
});
