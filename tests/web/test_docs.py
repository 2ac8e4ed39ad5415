"""`/docs` in headless Chromium: Swagger UI draws every operation of the contract and
tries one out under the page's own policy, which refuses nothing it does, and it asks
no other host for anything."""

from __future__ import annotations

REPORT_REFUSALS = """document.addEventListener("securitypolicyviolation", (event) =>
  console.error(`refused by the policy: ${event.violatedDirective} ${event.blockedURI}`))"""


def test_swagger_ui_draws_and_tries_the_contract_with_nothing_refused(new_page, site):
    page = new_page()
    requested, refused = [], []
    page.context.on("request", lambda request: requested.append(request.url))
    page.on(
        "console",
        lambda message: refused.append(message.text) if "policy" in message.text else None,
    )
    page.add_init_script(REPORT_REFUSALS)
    page.goto("/docs/")
    paths = site.call("GET", "/openapi.json")["paths"]
    operations = sum(method != "parameters" for item in paths.values() for method in item)
    # A function, not an expression: the page's CSP forbids the eval an expression polls by.
    page.wait_for_function(
        "(n) => document.querySelectorAll('.opblock').length === n", arg=operations
    )
    health = page.locator(".opblock", has=page.locator("[data-path='/healthz']"))
    health.locator(".opblock-summary").click()
    health.locator("button.try-out__btn").click()
    health.locator("button.execute").click()
    health.locator(".live-responses-table .response-col_status", has_text="200").wait_for()
    assert refused == []
    assert requested and all(url.startswith(site.url) for url in requested)
