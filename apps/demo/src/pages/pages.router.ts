import { Router, type Exchange } from '@tessera/web';
import { PAGE_ASSETS_PREFIX, type PageAssets } from './page-assets.js';
import { deviceCapabilitiesByRole } from './device-capabilities.js';
import { ASSET_HEADERS, PAGE_HEADERS } from './page-headers.js';
import { devicePage } from './templates/device-page.template.js';
import { IDENTITY_PAGE } from './templates/identity-page.template.js';
import { renderLandingPage } from './templates/landing-page.template.js';
import { BOOTSTRAP_PAGE, ENROLL_PAGE, RECOVERY_PAGE } from './templates/onboarding-pages.template.js';
import { ORGANIZATION_PAGE } from './templates/organization-page.template.js';
import { ORGANIZATIONS_PAGE } from './templates/organizations-page.template.js';
import { PROVISIONING_PAGE } from './templates/provisioning-page.template.js';
import { SSO_PAGE } from './templates/sso-page.template.js';
import { PAGE_ICON_SVG, renderPage, type PageTemplate } from './templates/page-layout.template.js';

const PAGES: Readonly<Record<string, PageTemplate>> = {
  '/identity': IDENTITY_PAGE,
  '/identity/bootstrap': BOOTSTRAP_PAGE,
  '/identity/enroll': ENROLL_PAGE,
  '/identity/recovery': RECOVERY_PAGE,
  '/identity/organizations': ORGANIZATIONS_PAGE,
  // The organization is the ID in the URL, read by the page's script; the server keeps no current one.
  '/identity/organizations/:orgId': ORGANIZATION_PAGE,
  // The organization's own sign-in page (anonymous): its enabled single sign-on providers.
  '/identity/organizations/:orgId/sso': SSO_PAGE,
  // SCIM provisioning of the organization (owners and admins): connections, tokens, events.
  '/identity/organizations/:orgId/provisioning': PROVISIONING_PAGE,
  // The RFC 8628 verification URI (`publicBaseUrl + /device`): codes are typed, never read from a query.
  '/device': devicePage(deviceCapabilitiesByRole()),
};

const NOT_BUILT = 'The demo pages are not built: run `npm run build` and start dist/apps/demo/src/main.js.\n';

/**
 * Radix routes for the demo's landing page (`GET /`, links to every page and the API docs) and
 * identity pages (`GET /identity`, `/identity/bootstrap`,
 * `/identity/enroll`, `/identity/recovery`, `/identity/organizations`,
 * `/identity/organizations/{orgId}`, its single sign-on page `/identity/organizations/{orgId}/sso` and its
 * provisioning page `/identity/organizations/{orgId}/provisioning`), the device confirmation page `GET /device` (the device flow's
 * verification URI) and their hashed assets under `/assets/identity/`.
 * Pages are rendered once at startup and served from memory; the browser scripts talk only to the
 * identity API, so the pages themselves never read the session.
 *
 * @example
 * RouterModule.forFeature({ routers: [{ useValue: pagesRouter(loadPageAssets(dir)) }] });
 */
export function pagesRouter(assets: PageAssets): Router {
  const router = new Router();
  const landing = renderLandingPage(assets);
  router.get('/', (exchange) => exchange.respond({ body: landing, headers: PAGE_HEADERS }));
  for (const [path, page] of Object.entries(PAGES)) {
    const html = renderPage(page, assets);
    router.get(path, (exchange) =>
      html === undefined
        ? exchange.respond({ status: 503, body: NOT_BUILT, headers: { 'cache-control': 'no-store' } })
        : exchange.respond({ body: html, headers: PAGE_HEADERS }),
    );
  }
  const icon = Buffer.from(PAGE_ICON_SVG);
  router.get(`${PAGE_ASSETS_PREFIX}/icon.svg`, (exchange) =>
    exchange.respond({ body: icon, headers: { ...ASSET_HEADERS, 'content-type': 'image/svg+xml' } }),
  );
  router.get(`${PAGE_ASSETS_PREFIX}/:file`, (exchange) => serveAsset(exchange, assets));
  return router;
}

function serveAsset(exchange: Exchange, assets: PageAssets): void {
  const asset = assets.files.get(exchange.pathParam('file') ?? '');
  if (asset === undefined) {
    exchange.respond({ status: 404, body: 'Not found\n', headers: { 'cache-control': 'no-store' } });
    return;
  }
  exchange.respond({ body: asset.body, headers: { ...ASSET_HEADERS, 'content-type': asset.contentType } });
}
