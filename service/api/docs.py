"""`/docs`: the contract in Swagger UI, for people.

Swagger UI's own files are those the flask-swagger-ui package ships, served from here;
the page and the script that starts Swagger UI are ours (`swagger/`): the package's page
starts it with an inline script and shows a top bar whose logo is styled inline (and
which loads a document from any address typed in it), so that it would need a policy
that lets inline code run. Ours needs nothing from any other host, and gets none.
"""

from __future__ import annotations

from pathlib import Path

import flask_swagger_ui
from flask import Blueprint, Response, send_from_directory
from werkzeug.exceptions import NotFound

from .web import SECURITY as PAGE_SECURITY

SWAGGER_UI = Path(flask_swagger_ui.__file__).with_name("dist")
# What the page loads of it; the rest (an OAuth redirect page...) has no use here.
SWAGGER_UI_FILES = ("swagger-ui-bundle.js", "swagger-ui.css", "index.css", "favicon-32x32.png")
OURS = Path(__file__).with_name("swagger")
# What Swagger UI needs, and nothing more: its scripts and styles from here, the icons
# its style sheet holds as `data:` images, and this server for the contract and for
# "Try it out". No frame may hold it: it sends what it is given as a bearer token.
SECURITY = {
    **PAGE_SECURITY,
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self';"
    " img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none';"
    " form-action 'none'",
}

blp = Blueprint("docs", __name__, url_prefix="/docs")


@blp.route("/")
def page() -> Response:
    response = send_from_directory(OURS, "index.html", max_age=0)
    response.headers.update(SECURITY)
    return response


@blp.route("/start.js")
def start() -> Response:
    return send_from_directory(OURS, "start.js", max_age=0)


@blp.route("/<name>")
def swagger_ui(name: str) -> Response:
    if name not in SWAGGER_UI_FILES:
        raise NotFound()
    return send_from_directory(SWAGGER_UI, name)
