"""Live streams and long-polls are refused to another site's pages unless a token
authenticates them: each holds one of the few places its client address has
(`CLAIM_WATCH_CAP`), and a page of any site could otherwise use up its visitor's with
`fetch(..., {mode: "no-cors"})`, which sends no token but is sent all the same (its
answer unread), leaving the visitor's own streams refused.

Which site sent a request, the browser says: `Sec-Fetch-Site` (every current browser),
else `Origin` (sent with most requests but a no-cors GET, by older ones too). Only
`same-origin` (and `none`: the person opened the address) is this server's own: a
`same-site` page is another origin of the same registrable domain, which ignores ports
(another program on another port of this host, a sibling subdomain): another party all
the same. The web client is served by this app, so its streams are always same-origin.
A client that is not a browser sends neither header and is not refused; nor is a token,
which no page of another site can send here (this server allows no cross-origin
request to carry an `Authorization` header).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import request

from .auth import bearer_token
from .problems import MEDIA_TYPE, Problem, ProblemSchema

OWN_SITE = ("same-origin", "none")  # the values of Sec-Fetch-Site that are this server's
# The refusal, as the OpenAPI document shows it: `@blp.alt_response(403, **REFUSED)`.
REFUSED = {
    "schema": ProblemSchema,
    "content_type": MEDIA_TYPE,
    "description": "`/problems/cross-site-watch`: sent by another site's page (`Sec-Fetch-Site`"
    " `cross-site` or `same-site`, or an `Origin` that is not this server's) without a"
    " token; a client that is not a browser sends neither header",
}


def from_another_site(public_url: str) -> bool:
    """Whether the request was sent by another site's page: by `Sec-Fetch-Site`, else
    by an `Origin` that is neither this request's host nor `public_url`'s."""
    fetch_site = request.headers.get("Sec-Fetch-Site")
    if fetch_site is not None:
        return fetch_site.lower() not in OWN_SITE
    origin = request.headers.get("Origin")
    if origin is None:
        return False
    public = urlsplit(public_url)
    own = {f"{request.scheme}://{request.host}", f"{public.scheme}://{public.netloc}"}
    return origin.lower() not in {name.lower() for name in own}


def refuse_other_sites(public_url: str) -> None:
    """Refuse (403, `cross-site-watch`) a live stream or long-poll that another site's
    page sent without a token."""
    if bearer_token() is None and from_another_site(public_url):
        raise Problem(
            "cross-site-watch",
            "another site's page may not open live streams or long-polls here without a token",
        )
