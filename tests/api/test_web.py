"""The web client's pages, and every other HTML answer of the app: a policy that lets
them load and call this server only, and no frame may hold them (they share the origin,
and so the storage, of the tokens and keys a browser keeps)."""

from __future__ import annotations

import pytest

from service.api.web import ASSETS, PAGES, SECURITY

GAME = "0123456789abcdef"


def policy(response) -> dict[str, list[str]]:
    """The Content-Security-Policy of `response`, by directive."""
    directives = (part.split() for part in response.headers["Content-Security-Policy"].split(";"))
    return {name: sources for name, *sources in directives}


def assert_framed_by_nobody_and_of_this_server_only(response) -> None:
    assert response.mimetype == "text/html"
    assert response.headers["X-Frame-Options"] == "DENY"
    directives = policy(response)
    assert directives["frame-ancestors"] == ["'none'"] and "default-src" in directives
    sources = {source for sources in directives.values() for source in sources}
    assert sources <= {"'self'", "'none'", "data:"}  # no other host, no inline code


HTML_PATHS = [
    *(path.replace("<game_id>", GAME) for path in PAGES.values()),
    *(f"/web/{file.relative_to(ASSETS)}" for file in ASSETS.rglob("*.html")),
    "/docs/",
    "/docs",  # a redirect, with a page of its own
    "/nowhere",  # a browser's 404: the page, saying so
]


@pytest.mark.parametrize("path", HTML_PATHS)
def test_every_html_answer_is_framed_by_nobody_and_loads_from_this_server_only(client, path):
    response = client.get(path, headers={"Accept": "text/html"})
    assert_framed_by_nobody_and_of_this_server_only(response)


def test_every_page_and_the_file_it_is_served_from_have_the_pages_policy(client):
    answers = [client.get(path) for path in ("/", f"/play/{GAME}", "/web/index.html")]
    assert {answer.headers["Content-Security-Policy"] for answer in answers} == {
        SECURITY["Content-Security-Policy"]
    }


def test_html_of_a_route_without_a_policy_of_its_own_gets_the_pages(app):
    app.add_url_rule("/elsewhere", "elsewhere", lambda: "<p>made elsewhere</p>")
    response = app.test_client().get("/elsewhere")
    assert_framed_by_nobody_and_of_this_server_only(response)
    assert response.headers["Content-Security-Policy"] == SECURITY["Content-Security-Policy"]
