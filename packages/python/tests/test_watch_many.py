"""Python reading 100 names while watching: one request per interval while nothing changes (the Service Account's
record list, one page per 200 records), and no read, counted on a proxy in front of the real emulator; as
bench/watch.mjs measures the TypeScript reader."""

from __future__ import annotations

import threading
import time

from cplane_reader import create_reader
from world import LyingProxy, World, through

NAMES = 100


def test_a_hundred_names_watched_cost_one_request_per_interval():
    w = World()
    proxy = None
    try:
        records = "".join(f"      secret-{i}:\n        value: {{ env: SECRET_VALUE }}\n        grants: {{ serviceAccounts: [ci-deployer] }}\n" for i in range(NAMES))
        w.config(f"version: 1\nprojects:\n  app:\n    name: python-watch\n    records:\n{records}")
        w.apply({"SECRET_VALUE": "python-watch-value-0001"})
        manifest = w.manifest()
        names = sorted(manifest["deployments"]["default"]["records"])
        assert len(names) == NAMES
        proxy = LyingProxy(w.url)
        lists = threading.Semaphore(0)

        def count(method, path, answer):
            if method == "GET" and path == "/v1/records":
                lists.release()
            return None

        seen: dict[str, str] = {}
        errors: list = []
        with create_reader(through(manifest, proxy.url), w.credential()) as reader:
            for name in names:
                reader.watch(name, lambda value, read: seen.__setitem__(read.name, value), interval=0.05, on_error=errors.append)
            while len(seen) < NAMES:
                time.sleep(0.01)
            assert set(seen.values()) == {"python-watch-value-0001"}
            # From the next list on: ten intervals, counted.
            proxy.lie = count
            assert lists.acquire(timeout=120)
            start = len(proxy.requests)
            for _ in range(10):
                assert lists.acquire(timeout=120)
            counted = proxy.requests[start:]
        lists_asked = [r for r in counted if r == ("GET", "/v1/records")]
        print(f"\n{NAMES} names watched: {len(counted)} requests over {len(lists_asked)} intervals ({len(counted) / len(lists_asked):.2f} per interval), 0 reads")
        assert counted == lists_asked and len(lists_asked) >= 10
        assert errors == []
    finally:
        if proxy:
            proxy.close()
        w.close()
