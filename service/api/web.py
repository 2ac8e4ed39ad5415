"""The web client: one page and its scripts, served by the API's app, for people.

Every page (`/`, `/new`, `/play/<game>`, `/replay/<game>`, `/inbox`, `/leaderboard`,
`/rules`, `/sign-in`, `/confirm-email`) is the same `index.html`; its script reads the
path and draws the page from the JSON API, as any client does, with the seat token or
player key the browser keeps (`/sign-in` is an API path too: other clients get the
API's answer there). Nothing here knows a game: the HTML and the scripts are the same for
everybody, so nothing hidden can be in them. Every asset comes from this package
(`web/`): no other host, no build. `/manifest.webmanifest` and the service worker
`/sw.js` make the site an app a phone installs, told of a turn with every page closed
(Web Push).
"""

from __future__ import annotations

import json
from pathlib import Path

from flask import Blueprint, Response, request, send_from_directory
from werkzeug.exceptions import MethodNotAllowed, NotFound

from .problems import respond

ASSETS = Path(__file__).with_name("web")
PAGES = {
    "lobby": "/",
    "new": "/new",
    "play": "/play/<game_id>",
    "replay": "/replay/<game_id>",
    "inbox": "/inbox",
    "leaderboard": "/leaderboard",  # `/ratings` is the API's
    "rules": "/rules",
    "sign-in": "/sign-in",  # a sign-in link's code, or a key, after `#`
    "confirm-email": "/confirm-email",  # a confirmation link's code after `#`
}
# Pages whose path is also the API's, with the API's methods there: a client that is not
# a browser asking GET is answered as the contract says (405), not with HTML.
API_PATHS = {"/sign-in": ["POST"]}
# The page may load and call only this server; no frame may hold it; links leave no
# address behind (an invite's code is after `#`, which no request carries anyway). Every
# other HTML answer of the app gets the same unless it has a policy of its own (`/docs`).
SECURITY = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:;"
    " frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}

blp = Blueprint("web", __name__, static_folder=ASSETS, static_url_path="/web")


def page(**_) -> Response:
    if request.path in API_PATHS and not _browser():
        raise MethodNotAllowed(API_PATHS[request.path])
    return send_from_directory(ASSETS, "index.html", max_age=0)


def _browser() -> bool:
    """Whether the client would rather have HTML than JSON: a browser."""
    return request.accept_mimetypes.best_match(("application/json", "text/html")) == "text/html"


for name, path in PAGES.items():
    blp.add_url_rule(path, name, page)


# What a browser needs to install the site as an app (a phone's home screen).
MANIFEST = {
    "name": "Claim",
    "short_name": "Claim",
    "description": "Play Claim and Claim 2, live or by mail",
    "start_url": "/",
    "scope": "/",
    "display": "standalone",
    "background_color": "#fffdf8",
    "theme_color": "#1f5fa8",
    "icons": [
        {"src": f"/web/icon-{size}.png", "sizes": f"{size}x{size}", "type": "image/png",
         "purpose": "any maskable"}
        for size in (192, 512)
    ],
}  # fmt: skip


@blp.route("/manifest.webmanifest")
def manifest() -> Response:
    response = Response(json.dumps(MANIFEST), mimetype="application/manifest+json")
    response.cache_control.no_cache = True
    return response


@blp.route("/sw.js")
def service_worker() -> Response:
    """The service worker, at the root so that its scope is the whole site."""
    return send_from_directory(ASSETS, "sw.js", max_age=0, mimetype="text/javascript")


@blp.after_app_request
def secure_html(response: Response) -> Response:
    """No HTML without a policy: the pages, `/web/index.html`, a redirect's body... The
    pages share the origin, and so the storage, of the tokens and keys a browser keeps."""
    if response.mimetype == "text/html" and "Content-Security-Policy" not in response.headers:
        response.headers.update(SECURITY)
    return response


@blp.app_errorhandler(NotFound)
def not_found(error: NotFound) -> Response:
    """An address that is nothing: for a browser, the page (which says so, with a way
    on); for any other client, the problem, as for every other error."""
    if not _browser():
        return respond(error)
    response = page()
    response.status_code = 404
    return response
