/* /docs: Swagger UI on the app's own OpenAPI document (slotsys/web/apidocs.py). Every file comes from this
   origin; the online spec validator (a third-party host) is off. */
(function () {
  "use strict";
  var el = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: el.getAttribute("data-spec-url"),
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: "StandaloneLayout"
  });
})();
