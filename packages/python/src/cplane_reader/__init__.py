"""cplane_reader: read the secrets cplane manages from a Python application, with the same guarantees and error
codes as the TypeScript SDK's createReader (docs/sdk.md): by name, with the public reader manifest
(CPLANE_MANIFEST) and one credential (CPLANE_READER); decrypted here, accepted only from a pinned writer, for this
account, record and reader, never older than a version already read.

    from cplane_reader import create_reader

    reader = create_reader()
    stripe_key = reader.get("payments/stripe-key")
    reader.watch("core/ci-token", lambda token, read: gateway.set_token(token), interval=30)
    reader.close()
"""

from .credential import ReaderCredential, decode_reader_credential, encode_reader_credential
from .errors import AccountError, ApiError, ManifestError, NetworkError, ReaderCredentialError, ReaderError, WatchError, WrapError
from .reader import Reader, create_reader
from .value import ReadValue

__version__ = "0.1.0"
__all__ = [
    "create_reader",
    "Reader",
    "ReadValue",
    "ReaderError",
    "WrapError",
    "ManifestError",
    "ReaderCredentialError",
    "AccountError",
    "ApiError",
    "NetworkError",
    "WatchError",
    "ReaderCredential",
    "decode_reader_credential",
    "encode_reader_credential",
]
