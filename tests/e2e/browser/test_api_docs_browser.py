"""/docs renders in headless Chromium with every request to another origin blocked: Swagger UI comes up from
the app's own files and lists the API's operations from its own spec."""

from __future__ import annotations

from urllib.parse import urlsplit

from .conftest import shot


def test_docs_renders_with_the_network_blocked(page, live):
    server, _api = live
    origin = urlsplit(server.url).netloc
    blocked: list[str] = []
    requested: list[str] = []

    def only_this_origin(route):
        url = route.request.url
        requested.append(url)
        if urlsplit(url).netloc != origin:
            blocked.append(url)
            route.abort()
        else:
            route.continue_()

    page.context.route("**/*", only_this_origin)
    page.goto(f"{server.url}/docs")
    page.wait_for_selector(".swagger-ui .info .title")
    assert "Slot floor" in page.inner_text(".swagger-ui .info .title")
    page.wait_for_selector(".opblock-summary-path")
    shot(page, "api-docs")
    # operations from the app's own spec are listed (Swagger UI renders them progressively: the first ones)
    page.wait_for_function("document.querySelectorAll('.opblock-summary-path[data-path^=\"/api/v1/\"]').length >= 5",
                           timeout=30_000)
    assert not blocked, f"/docs asked another host for: {blocked}"
    assert any(u.endswith("/docs/assets/swagger-ui-bundle.js") for u in requested)
    assert any(u.endswith("/openapi.json") for u in requested)
