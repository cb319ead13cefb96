"""The primitives against published test vectors:
- HChaCha20 and XChaCha20-Poly1305: draft-irtf-cfrg-xchacha-03 (https://datatracker.ietf.org/doc/html/draft-irtf-cfrg-xchacha-03),
  section 2.2.1 (the HChaCha20 subkey) and appendix A.3.1 (the AEAD), written out below from the draft;
- HPKE: RFC 9180 appendix A.2.1 (base) and A.2.3 (auth), the JSON the TypeScript tests read (test/crypto/rfc9180-a2-vectors.json,
  copied from the RFC's source, cfrg/draft-irtf-cfrg-hpke): every key pair, the key schedule, every sequence number, every export."""

import json
from pathlib import Path

import pytest

from cplane_reader import hpke
from cplane_reader.xchacha import InvalidTag, XChaCha20Poly1305, hchacha20

REPO = Path(__file__).resolve().parents[3]
RFC9180 = json.loads((REPO / "test/crypto/rfc9180-a2-vectors.json").read_text())


def test_hchacha20_draft_section_2_2_1():
    key = bytes(range(32))
    nonce = bytes.fromhex("000000090000004a0000000031415927")
    assert hchacha20(key, nonce).hex() == "82413b4227b27bfed30e42508a877d73a0f9e4d58a74a853c12ec41326d3ecdc"


SUNSCREEN = b"Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it."
A31_KEY = bytes(range(0x80, 0xA0))
A31_NONCE = bytes(range(0x40, 0x58))
A31_AAD = bytes.fromhex("50515253c0c1c2c3c4c5c6c7")
A31_SEALED = bytes.fromhex(
    "bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb"
    "731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b452"
    "2f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff9"
    "21f9664c97637da9768812f615c68b13b52e"
    "c0875924c1c7987947deafd8780acf49"  # the tag
)


def test_xchacha20_poly1305_draft_appendix_a_3_1():
    aead = XChaCha20Poly1305(A31_KEY)
    assert aead.encrypt(A31_NONCE, SUNSCREEN, A31_AAD) == A31_SEALED
    assert aead.decrypt(A31_NONCE, A31_SEALED, A31_AAD) == SUNSCREEN


def test_xchacha20_poly1305_refuses_altered_bytes_and_other_associated_data():
    aead = XChaCha20Poly1305(A31_KEY)
    altered = bytes([A31_SEALED[0] ^ 1]) + A31_SEALED[1:]
    with pytest.raises(InvalidTag):
        aead.decrypt(A31_NONCE, altered, A31_AAD)
    with pytest.raises(InvalidTag):
        aead.decrypt(A31_NONCE, A31_SEALED, b"other")
    with pytest.raises(InvalidTag):  # the last 8 nonce bytes count too
        aead.decrypt(A31_NONCE[:-1] + b"\x00", A31_SEALED, A31_AAD)


@pytest.mark.parametrize("name,mode", [("A.2.1 base", "base"), ("A.2.3 auth", "auth")])
def test_hpke_rfc9180(name, mode):
    v = RFC9180[name]
    s = {k: bytes.fromhex(x) if k not in ("mode", "kem_id", "kdf_id", "aead_id") else x for k, x in v["setup"].items()}
    assert v["setup"]["mode"] == ("0" if mode == "base" else "2")
    assert [v["setup"]["kem_id"], v["setup"]["kdf_id"], v["setup"]["aead_id"]] == ["32", "1", "3"]
    for who in ("E", "R", "S") if mode == "auth" else ("E", "R"):
        assert hpke.derive_key_pair(s[f"ikm{who}"]) == (s[f"sk{who}m"], s[f"pk{who}m"])
    sender_key = s["skSm"] if mode == "auth" else None
    sender_public = s["pkSm"] if mode == "auth" else None

    def sender():
        return hpke.setup_sender(s["pkRm"], s["info"], sender_key, ephemeral=hpke.derive_key_pair(s["ikmE"]))

    def recipient():
        return hpke.setup_recipient(s["skRm"], s["enc"], s["info"], sender_public)

    for ctx in (sender(), recipient()):
        assert (ctx.enc, ctx.shared_secret, ctx.key, ctx.base_nonce, ctx.exporter_secret) == (
            s["enc"], s["shared_secret"], s["key"], s["base_nonce"], s["exporter_secret"])
    sealer, opener = sender(), recipient()
    assert [int(e["sequence_number"]) for e in v["Encryptions"]] == [0, 1, 2, 4, 255, 256]
    next_sequence = 0
    for e in v["Encryptions"]:
        while next_sequence < int(e["sequence_number"]):
            opener.open(b"", sealer.seal(b"", b""))
            next_sequence += 1
        assert sealer.seal(bytes.fromhex(e["aad"]), bytes.fromhex(e["pt"])).hex() == e["ct"]
        assert opener.open(bytes.fromhex(e["aad"]), bytes.fromhex(e["ct"])).hex() == e["pt"]
        next_sequence += 1
    assert len(v["Exported Values"]) == 3
    for e in v["Exported Values"]:
        for ctx in (sender(), recipient()):
            assert ctx.export(bytes.fromhex(e["exporter_context"]), int(e["L"])).hex() == e["exported_value"]


def test_hpke_auth_mode_authenticates_the_sender():
    v = RFC9180["A.2.3 auth"]
    s = {k: bytes.fromhex(x) for k, x in v["setup"].items() if k not in ("mode", "kem_id", "kdf_id", "aead_id")}
    first = v["Encryptions"][0]
    aad, ct = bytes.fromhex(first["aad"]), bytes.fromhex(first["ct"])
    assert hpke.open_sealed(s["skRm"], s["enc"], ct, s["info"], aad, s["pkSm"]).hex() == first["pt"]
    with pytest.raises(hpke.HpkeOpenError):  # as base mode
        hpke.open_sealed(s["skRm"], s["enc"], ct, s["info"], aad)
    with pytest.raises(hpke.HpkeOpenError):  # as from another sender
        hpke.open_sealed(s["skRm"], s["enc"], ct, s["info"], aad, hpke.generate_key_pair()[1])
    forger = hpke.generate_key_pair()[0]
    enc, forged = hpke.seal(s["pkRm"], s["info"], aad, bytes.fromhex(first["pt"]), forger)
    with pytest.raises(hpke.HpkeOpenError):
        hpke.open_sealed(s["skRm"], enc, forged, s["info"], aad, s["pkSm"])
    with pytest.raises(hpke.HpkeOpenError):  # a small-order public key: an all-zero shared secret
        hpke.seal(bytes(32), s["info"], b"", b"\x00")
