"""The API reference at ``/docs``, served offline: Swagger UI's distribution files come from the
``flask-swagger-ui`` package (MIT; its ``dist/`` is the swagger-ui-dist release) and are served by the app at
``/docs/assets/…``, so the page loads nothing from a CDN and works on a floor network without internet.

APIFlask's own docs page loads Swagger UI from a CDN and starts it with an inline script. We keep its endpoint
(``openapi.docs``, public like the spec) but render our own page: only same-origin ``<script src>`` and
``<link href>`` (no inline script or style, so a ``Content-Security-Policy`` of ``'self'`` allows it), the
starter in ``web/static/apidocs.js`` (spec URL from a ``data-`` attribute, the online validator off). The
APIFlask config keys are pointed at the same local files, so nothing else in the app names a CDN either.
"""

from __future__ import annotations

from pathlib import Path

import flask_swagger_ui
from flask import Blueprint, current_app, render_template_string, url_for

DIST = Path(flask_swagger_ui.__file__).resolve().parent / "dist"
bp = Blueprint("apidocs", __name__, static_folder=str(DIST), static_url_path="/docs/assets")

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>{{ title }} {{ version }} — API reference</title>
  <link rel="stylesheet" href="{{ url_for('apidocs.static', filename='swagger-ui.css') }}">
  <link rel="stylesheet" href="{{ url_for('web.static', filename='apidocs.css') }}">
  <link rel="icon" type="image/png" href="{{ url_for('apidocs.static', filename='favicon-32x32.png') }}">
</head>
<body>
  <div id="swagger-ui" data-spec-url="{{ url_for('openapi.spec') }}"></div>
  <script src="{{ url_for('apidocs.static', filename='swagger-ui-bundle.js') }}"></script>
  <script src="{{ url_for('apidocs.static', filename='swagger-ui-standalone-preset.js') }}"></script>
  <script src="{{ url_for('web.static', filename='apidocs.js') }}"></script>
</body>
</html>
"""


def docs_page():
    """``GET /docs``: the Swagger UI page (HTML); every asset it names is served by this app."""
    return render_template_string(PAGE, title=current_app.title, version=current_app.version)


def register_api_docs(app) -> None:
    """Serve Swagger UI's files at ``/docs/assets/`` and render ``/docs`` from them (call after the routes)."""
    app.register_blueprint(bp)
    with app.test_request_context():
        asset = lambda name: url_for("apidocs.static", filename=name)  # noqa: E731
        app.config.update(SWAGGER_UI_CSS=asset("swagger-ui.css"), SWAGGER_UI_BUNDLE_JS=asset("swagger-ui-bundle.js"),
                          SWAGGER_UI_STANDALONE_PRESET_JS=asset("swagger-ui-standalone-preset.js"),
                          DOCS_FAVICON=asset("favicon-32x32.png"), REDOC_USE_GOOGLE_FONT=False)
    if "openapi.docs" in app.view_functions:
        app.view_functions["openapi.docs"] = docs_page
