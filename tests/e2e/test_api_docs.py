"""/docs works offline: the page names no external host and every script, stylesheet and icon it references is
served by the app itself (200, the right type), the Swagger UI starter points at the app's own spec with the
online validator off, and no APIFlask docs setting names a CDN."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urlsplit


class _Refs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.refs: list[tuple[str, str]] = []
        self.inline_scripts = 0
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for attr in ("src", "href"):
            if a.get(attr):
                self.refs.append((tag, a[attr]))
        if tag == "script":
            self._in_script = True
        if tag == "style" or "style" in a:
            self.inline_scripts += 1

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script and data.strip():
            self.inline_scripts += 1


def test_docs_page_uses_only_same_origin_assets(app):
    client = app.test_client()
    r = client.get("/docs")
    assert r.status_code == 200 and r.mimetype == "text/html"
    html = r.get_data(as_text=True)
    assert not re.search(r"(?i)(https?:)?//[a-z0-9.-]+", html.replace("<!DOCTYPE html>", "")), "an absolute URL"
    parser = _Refs()
    parser.feed(html)
    assert parser.inline_scripts == 0  # nothing a 'self' Content-Security-Policy would block
    kinds = {}
    for _tag, ref in parser.refs:
        u = urlsplit(ref)
        assert not u.scheme and not u.netloc and ref.startswith("/"), ref
        asset = client.get(ref)
        assert asset.status_code == 200, ref
        assert len(asset.data) > 0
        kinds[ref.rsplit("/", 1)[-1]] = asset.mimetype
    assert kinds["swagger-ui-bundle.js"] in ("text/javascript", "application/javascript")
    assert kinds["swagger-ui.css"] == "text/css" and kinds["favicon-32x32.png"] == "image/png"
    assert {"swagger-ui-bundle.js", "swagger-ui-standalone-preset.js", "apidocs.js", "swagger-ui.css"} <= set(kinds)
    # the starter loads the app's own spec (named in the page) and never calls the online validator
    spec_url = re.search(r'data-spec-url="([^"]+)"', html).group(1)
    assert spec_url == "/openapi.json" and client.get(spec_url).status_code == 200
    starter = client.get("/assets/apidocs.js").get_data(as_text=True)
    assert "validatorUrl: null" in starter and "http" not in starter
    for key in ("SWAGGER_UI_CSS", "SWAGGER_UI_BUNDLE_JS", "SWAGGER_UI_STANDALONE_PRESET_JS", "DOCS_FAVICON"):
        assert app.config[key].startswith("/docs/assets/"), key
    assert app.config["REDOC_USE_GOOGLE_FONT"] is False
