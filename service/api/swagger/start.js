// Swagger UI on this server's contract, in its base layout: no top bar (a box that
// loads a document from any address) and no validator badge (an image from
// validator.swagger.io that would tell it this page's address).
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
});
