"""`claim serve` behind a real nginx, configured as `deploy/nginx.conf` says, with the
proxy in `CLAIM_TRUSTED_PROXIES`: each client behind it keeps its own rate limit and
watch slots, and the access log names it."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

from service.runtime.local_cluster import free_port
from tests.runtime.test_serve import ROOT, start, stop, wait_for_health
from tests.slow_clients import SLOW_BODY

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
PROXY = "127.0.0.1"  # the address the proxy reaches claim serve from
CLIENTS = ("127.0.0.2", "127.0.0.3")  # two clients of their own addresses


def nginx_config(directory: Path, listen: int, api: int) -> Path:
    """deploy/nginx.conf, its upstream made this test's claim serve and its listening
    port a free one, in a main configuration that keeps everything in `directory`."""
    site = (ROOT / "deploy" / "nginx.conf").read_text()
    upstreams = (
        "    server 10.0.0.11:8000;  # API host 1\n    server 10.0.0.12:8000;  # API host 2\n"
    )
    assert upstreams in site and "listen 80;" in site
    site = site.replace(upstreams, f"    server 127.0.0.1:{api};\n")
    site = site.replace("listen 80;", f"listen 127.0.0.1:{listen};")
    (directory / "claim.conf").write_text(site)
    main = directory / "nginx.conf"
    main.write_text(
        f"daemon off;\nmaster_process off;\npid {directory}/nginx.pid;\n"
        f"error_log {directory}/error.log;\nevents {{}}\n"
        f"http {{\n  access_log off;\n  client_body_temp_path {directory}/body;\n"
        f"  proxy_temp_path {directory}/proxy;\n  include {directory}/claim.conf;\n}}\n"
    )
    return main


@pytest.fixture(scope="module")
def behind_nginx(tmp_path_factory):
    """claim serve trusting the proxy, and nginx in front of it: nginx's port,
    claim serve's port and its log."""
    if not os.access(NGINX, os.X_OK):
        pytest.skip("nginx is not installed (bin/test installs Debian's nginx-light as root)")
    unset = ("REDIS_URL", "CLAIM_PREFIX")
    env = {name: value for name, value in os.environ.items() if name not in unset}
    env.update(
        CLAIM_DATA_DIR=str(tmp_path_factory.mktemp("claim-data")),
        CLAIM_TRUSTED_PROXIES=PROXY,
        CLAIM_RATE_LIMIT="50/minute",
        CLAIM_WATCH_CAP="1",
        CLAIM_SENDING_CAP="2",
        CLAIM_BODY_TIMEOUT="10",  # all the slow ones of a test connected by then
    )
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    serve, api = start(env, log)
    directory = tmp_path_factory.mktemp("nginx")
    listen = free_port()
    proxy = subprocess.Popen(
        [NGINX, "-p", str(directory), "-c", str(nginx_config(directory, listen, api))],
        stderr=subprocess.STDOUT,
        stdout=(directory / "nginx.out").open("wb"),
    )
    try:
        wait_for_health(f"http://127.0.0.1:{api}", serve, log)
        until = time.monotonic() + 30
        while ask(listen, CLIENTS[0], "GET", "/healthz")[0] != 200:
            assert proxy.poll() is None, (directory / "error.log").read_text()
            assert time.monotonic() < until, "nginx did not answer"
            time.sleep(0.1)
        yield listen, api, log
    finally:
        proxy.terminate()
        proxy.wait(timeout=30)
        stop(serve)


def ask(port: int, source: str, method: str, path: str, body=None, headers=None):
    """A request from `source`: its status, headers and body, read if JSON (status 0: no
    answer)."""
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=30, source_address=(source, 0)
    )
    try:
        payload = json.dumps(body) if body is not None else None
        connection.request(
            method, path, payload, {"Content-Type": "application/json", **(headers or {})}
        )
        response = connection.getresponse()
        text = response.read()
        read = json.loads if "json" in response.headers.get("Content-Type", "") else bytes
        return response.status, response.headers, read(text)
    except OSError:
        return 0, {}, None
    finally:
        connection.close()


def remaining(port: int, source: str, headers=None) -> int:
    return int(ask(port, source, "GET", "/healthz", headers=headers)[1]["X-RateLimit-Remaining"])


def test_each_client_behind_the_proxy_has_its_own_rate_limit_and_is_logged(behind_nginx):
    port, _, log = behind_nginx
    first, second = CLIENTS
    before = remaining(port, first)
    assert remaining(port, first) == before - 1
    assert remaining(port, second) == 49  # its own count
    # what a client writes in X-Forwarded-For itself is not believed
    assert remaining(port, first, {"X-Forwarded-For": "203.0.113.1"}) == before - 2
    logged = log.read_text()
    assert f"{first} " in logged and f"{second} " in logged


def test_each_client_behind_the_proxy_has_its_own_watch_slots(behind_nginx):
    port, _, _ = behind_nginx
    status, _, game = ask(port, CLIENTS[0], "POST", "/games", {"players": 2})
    assert status == 201, game
    stream = f"/games/{game['game_id']}/stream?max_seconds="
    held = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(CLIENTS[0], 0))
    try:
        held.request("GET", stream + "20")
        answer = held.getresponse()
        assert answer.status == 200 and answer.readline().startswith(b"id: ")  # not buffered
        status, _, problem = ask(port, CLIENTS[0], "GET", stream + "1")
        assert status == 429 and problem["type"] == "/problems/too-many-watches"
        status, _, _ = ask(port, CLIENTS[1], "GET", stream + "1")
        assert status == 200  # the other client's slot is its own
    finally:
        held.close()


def test_a_trusted_proxy_is_not_held_to_the_cap_of_connections_still_sending(behind_nginx):
    _, api, _ = behind_nginx
    for source, refused in ((PROXY, False), (CLIENTS[1], True)):
        held = []
        for _ in range(8):  # twice what two processes take from one client address
            connection = socket.create_connection(("127.0.0.1", api), source_address=(source, 0))
            connection.sendall(SLOW_BODY)
            held.append(connection)
        statuses = set()
        for connection in held:
            with connection:
                statuses.add(int(connection.makefile("rb").read().split()[1]))
        assert (429 in statuses) == refused and 408 in statuses
