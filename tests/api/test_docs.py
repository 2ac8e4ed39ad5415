"""`/docs`: Swagger UI on the contract, every file from this server, under a policy of its
own that lets no inline code run and no frame hold it."""

from __future__ import annotations

import re

from tests.api.test_web import assert_framed_by_nobody_and_of_this_server_only, policy


def test_the_docs_page_loads_everything_from_this_server(client):
    page = client.get("/docs/")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert assets and not [asset for asset in assets if not asset.startswith("/docs/")]
    assert "//" not in html  # no address of another host
    for asset in assets:
        assert client.get(asset).status_code == 200, asset
    assert 'url: "/openapi.json"' in client.get("/docs/start.js").get_data(as_text=True)
    assert client.get("/openapi.json").json["openapi"].startswith("3.1")


def test_the_docs_page_runs_no_inline_code_and_its_policy_allows_none(client):
    page = client.get("/docs/")
    html = page.get_data(as_text=True)
    assert re.findall(r"<script(?![^>]*\ssrc=)[^>]*>", html) == []
    assert "<style" not in html and " style=" not in html
    assert_framed_by_nobody_and_of_this_server_only(page)
    directives = policy(page)
    assert directives["default-src"] == ["'none'"]
    assert directives["script-src"] == directives["style-src"] == ["'self'"]


def test_only_the_files_of_swagger_ui_that_the_page_loads_are_served(client):
    for unused in ("oauth2-redirect.html", "oauth2-redirect.js", "swagger-ui.js", "VERSION"):
        assert client.get(f"/docs/{unused}").status_code == 404, unused
