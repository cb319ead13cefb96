"""The Python service of python.Dockerfile: reads its secret by name with cplane_reader, keeps the token current."""

import hashlib
import os

from cplane_reader import create_reader

with create_reader() as reader:
    stripe_key = reader.get("payments/stripe-key")  # use it; never log it
    # What the recipe's test compares: a hash, never the value; and which cplane settings the process has.
    print("payments/stripe-key", hashlib.sha256(stripe_key.encode()).hexdigest())
    print("settings", " ".join(sorted(n for n in os.environ if n.startswith("CPLANE_"))))
