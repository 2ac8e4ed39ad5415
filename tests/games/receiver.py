"""A webhook receiver, or a push service, on 127.0.0.1 for the tests of notifications."""

import http.server
import threading

import pytest


class Receiver(http.server.ThreadingHTTPServer):
    """A webhook receiver: keeps every request and answers the statuses in `answers`
    first, then 200 (a redirect to /elsewhere for 302)."""

    def __init__(self):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[tuple[str, dict, bytes]] = []
        self.answers: list[int] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_port}/hook"


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.server.requests.append((self.path, dict(self.headers), body))
        status = self.server.answers.pop(0) if self.server.answers else 200
        self.send_response(status)
        if status == 302:
            self.send_header("Location", "/elsewhere")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def receiver():
    server = Receiver()
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
