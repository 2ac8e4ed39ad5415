"""Another site's page cannot use up its visitor's places for live streams (an address
holds 20): its no-cors fetches of this server's streams are refused, and the visitor's
own page of this server stays live."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from service.runtime.local_cluster import free_port

STREAMS = 24  # more than an address's places (CLAIM_WATCH_CAP: 20)
# What another site's page can do: streams of this server that send no credential,
# their answers unread (no-cors); answers how each fetch ended.
FETCH_STREAMS = """
([address, count]) => Promise.all(Array.from({ length: count }, () =>
  fetch(address, { mode: "no-cors" }).then(() => "answered", () => "failed")))
"""


class OtherSite(BaseHTTPRequestHandler):
    """Another site: one empty page."""

    def do_GET(self):
        body = b"<!doctype html><title>Elsewhere</title><p>Another site."
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def other_site_port():
    """The port of another site on this host (a server of its own, another origin)."""
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), OtherSite)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_port
    server.shutdown()
    server.server_close()
    thread.join()


# 127.0.0.1 on another port is the same site (a site ignores ports); localhost another.
@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_another_sites_page_cannot_use_up_its_visitors_live_streams(
    site, new_page, other_site_port, host
):
    ai = {"kind": "ai", "level": "random"}
    game = site.call("POST", "/games", {"players": 2, "seats": [{"kind": "human"}, ai]})
    elsewhere = new_page()
    refused = []
    elsewhere.on("response", lambda answer: "/stream" in answer.url and refused.append(answer))
    elsewhere.goto(f"http://{host}:{other_site_port}/")
    stream = f"{site.url}/games/{game['game_id']}/stream?max_seconds=3600"
    assert elsewhere.evaluate(FETCH_STREAMS, [stream, STREAMS]) == ["answered"] * STREAMS
    assert [answer.status for answer in refused] == [403] * STREAMS
    assert site.claim.watch_leases.held("127.0.0.1") == 0

    lobby = new_page(context=elsewhere.context)  # the visitor's own tab of this server
    lobby.goto("/")
    lobby.wait_for_selector("#lobby-open ~ ul, #lobby-open ~ p")
    seats = [{"kind": "human"}, ai]
    created = site.call("POST", "/games", {"players": 2, "public": True, "seats": seats})
    lobby.locator(f"#lobby-open ~ ul li[data-game='{created['game_id']}']").wait_for()  # live
