"""The Python client (`client/`) against a real `claim serve` that the tests start: on
a free loopback port, with an embedded Redis in a directory of its own and its AI
worker, stopped by its pid. The client is imported from `client/` (put on `sys.path`
here), as `pip install ./client` would install it: the project's test extra installs
its one dependency, httpx, since pip cannot name a package by a relative path in
pyproject.toml."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.runtime.test_serve import start, stop, wait_for_health

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "client"
sys.path.insert(0, str(CLIENT))


@pytest.fixture(scope="module")
def server_url(tmp_path_factory) -> str:
    """The URL of a `claim serve` of the module's own (the AI worker beside it)."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("CLAIM_")}
    env.pop("REDIS_URL", None)
    env["CLAIM_DATA_DIR"] = str(tmp_path_factory.mktemp("claim-data"))
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    process, port = start(env, log)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_for_health(url, process, log)
        yield url
    finally:
        stop(process)
