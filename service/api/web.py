"""The web client: one page and its scripts, served by the API's app, for people.

Every page (`/`, `/new`, `/play/<game>`, `/replay/<game>`, `/inbox`, `/leaderboard`,
`/rules`, `/sign-in`) is the same `index.html`; its script reads the path and draws the
page from the JSON API, as any client does, with the seat token or player key the
browser keeps. Nothing here knows a game: the HTML and the scripts are the same for
everybody, so nothing hidden can be in them. Every asset comes from this package
(`web/`): no other host, no build.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, request, send_from_directory
from werkzeug.exceptions import NotFound

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
    "sign-in": "/sign-in",  # the key or an email's code after `#`
}
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
    return send_from_directory(ASSETS, "index.html", max_age=0)


for name, path in PAGES.items():
    blp.add_url_rule(path, name, page)


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
    if request.accept_mimetypes.best_match(("application/json", "text/html")) != "text/html":
        return respond(error)
    response = page()
    response.status_code = 404
    return response
