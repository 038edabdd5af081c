import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Router, type Exchange } from '@tessera/web';

/** URL prefix of the viewer's files (outside `/identity/`, so no identity route rules apply). */
export const API_DOCS_ASSETS_PREFIX = '/assets/api-docs';
/** The live document the viewer renders (served by the identity router when `openApi` is on). */
const DOCUMENT_URL = '/identity/v1/openapi.json';

/**
 * The page's own script (a file, since the CSP forbids inline scripts): Swagger UI on the live
 * document, without "try it out" (the API needs a session cookie, CSRF token and `Origin`).
 */
const INIT_SCRIPT = `window.addEventListener('load', function () {
  window.SwaggerUIBundle({
    url: ${JSON.stringify(DOCUMENT_URL)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    supportedSubmitMethods: [],
    validatorUrl: null,
  });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Identity API — Tessera</title>
<link rel="icon" href="/assets/identity/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${API_DOCS_ASSETS_PREFIX}/swagger-ui.css">
<script src="${API_DOCS_ASSETS_PREFIX}/swagger-ui-bundle.js" defer></script>
<script src="${API_DOCS_ASSETS_PREFIX}/api-docs.js" defer></script>
</head>
<body>
<noscript>The API reference needs JavaScript; the document itself is at <a href="${DOCUMENT_URL}">${DOCUMENT_URL}</a>.</noscript>
<div id="swagger-ui"></div>
</body>
</html>
`;

/**
 * Headers of the docs page: like the demo pages (same-origin scripts only, no inline script), except
 * that Swagger UI sets inline `style` attributes and uses `data:` images for its icons.
 */
const DOCS_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "connect-src 'self'",
    "img-src 'self' data:",
    "form-action 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

/** The viewer's files are not content-hashed: browsers revalidate them. */
const VIEWER_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-cache',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
};

interface ViewerFile {
  readonly body: Buffer;
  readonly contentType: string;
}

/** The files of the installed `swagger-ui-dist` the page needs, read once, plus the page's script. */
function loadViewer(): ReadonlyMap<string, ViewerFile> {
  const directory = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const read = (name: string) => readFileSync(join(directory, name));
  return new Map<string, ViewerFile>([
    ['swagger-ui-bundle.js', { body: read('swagger-ui-bundle.js'), contentType: 'text/javascript; charset=utf-8' }],
    ['swagger-ui.css', { body: read('swagger-ui.css'), contentType: 'text/css; charset=utf-8' }],
    ['api-docs.js', { body: Buffer.from(INIT_SCRIPT), contentType: 'text/javascript; charset=utf-8' }],
  ]);
}

/**
 * `GET /identity/docs`: the identity API reference rendered by Swagger UI (bundled from the
 * `swagger-ui-dist` package and served by the demo itself, no CDN) from the live
 * `/identity/v1/openapi.json`; its files under `/assets/api-docs/`. With `enabled: false` (the
 * identity `openApi` option is off) neither exists.
 *
 * @example
 * RouterModule.forFeature({ routers: [{ useFactory: () => apiDocsRouter({ enabled: true }) }] });
 */
export function apiDocsRouter(options: { readonly enabled: boolean }): Router {
  const router = new Router();
  if (!options.enabled) return router;
  const files = loadViewer();
  router.get('/identity/docs', (exchange) => exchange.respond({ body: PAGE, headers: DOCS_PAGE_HEADERS }));
  router.get(`${API_DOCS_ASSETS_PREFIX}/:file`, (exchange) => serveViewerFile(exchange, files));
  return router;
}

function serveViewerFile(exchange: Exchange, files: ReadonlyMap<string, ViewerFile>): void {
  const file = files.get(exchange.pathParam('file') ?? '');
  if (file === undefined) {
    exchange.respond({ status: 404, body: 'Not found\n', headers: { 'cache-control': 'no-store' } });
    return;
  }
  exchange.respond({ body: file.body, headers: { ...VIEWER_HEADERS, 'content-type': file.contentType } });
}
