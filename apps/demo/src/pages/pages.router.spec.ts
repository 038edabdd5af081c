import { describe, expect, it } from '@jest/globals';
import { createTestExchange } from '@tessera/web';
import { DEMO_FEDERATION, demoIdentity } from '../identity/demo-identity.config.js';
import { PAGE_ASSETS_PREFIX, type PageAssets } from './page-assets.js';
import { PAGE_HEADERS } from './page-headers.js';
import { pagesRouter } from './pages.router.js';

/** Built assets as `loadPageAssets` would report them: every entry has a hashed file. */
function builtAssets(): PageAssets {
  return {
    files: new Map(),
    url: (entry) => `${PAGE_ASSETS_PREFIX}/${entry.replace(/\.(js|css)$/, '-HASH.$1')}`,
  };
}

async function get(assets: PageAssets, path: string) {
  const { exchange, response } = createTestExchange({ method: 'GET', url: path });
  let passed = false;
  await pagesRouter(assets).asMiddleware()(exchange, async () => {
    passed = true;
  });
  return { response, passed };
}

const ORGANIZATION_ID = '019abcde-0123-7abc-8def-0123456789ab';

describe('pagesRouter', () => {
  it('serves the organization sign-in page /identity/organizations/{orgId}/sso with the page headers and its own script', async () => {
    const { response, passed } = await get(builtAssets(), `/identity/organizations/${ORGANIZATION_ID}/sso`);
    expect(passed).toBe(false);
    expect(response.status).toBe(200);
    for (const [name, value] of Object.entries(PAGE_HEADERS)) expect(response.headers[name]).toBe(value);
    expect(response.text).toContain(`<script type="module" src="${PAGE_ASSETS_PREFIX}/sso.page-HASH.js"></script>`);
    expect(response.text).toContain('<h1>Single sign-on</h1>');
    expect(response.text).toContain('id="sso-providers"');
  });

  it('serves the provisioning page /identity/organizations/{orgId}/provisioning with the page headers and its own script', async () => {
    const { response, passed } = await get(builtAssets(), `/identity/organizations/${ORGANIZATION_ID}/provisioning`);
    expect(passed).toBe(false);
    expect(response.status).toBe(200);
    for (const [name, value] of Object.entries(PAGE_HEADERS)) expect(response.headers[name]).toBe(value);
    expect(response.text).toContain(
      `<script type="module" src="${PAGE_ASSETS_PREFIX}/provisioning.page-HASH.js"></script>`,
    );
    expect(response.text).toContain('<h1>Provisioning (SCIM)</h1>');
    expect(response.text).toContain('id="scim-base-url"');
  });

  it('keeps serving the organization page itself, now with the single sign-on panel', async () => {
    const { response } = await get(builtAssets(), `/identity/organizations/${ORGANIZATION_ID}`);
    expect(response.status).toBe(200);
    expect(response.text).toContain(`src="${PAGE_ASSETS_PREFIX}/organization.page-HASH.js"`);
    expect(response.text).toContain('<h3 id="sso-heading">Single sign-on</h3>');
  });

  it('lands federated sign-ins (federation.successPath) on the account page, whose script adopts the CSRF hand-off', async () => {
    expect(demoIdentity(3000, undefined, {}).federation).toBe(DEMO_FEDERATION);
    const { response } = await get(builtAssets(), DEMO_FEDERATION.successPath!);
    expect(response.status).toBe(200);
    expect(response.text).toContain(`src="${PAGE_ASSETS_PREFIX}/identity.page-HASH.js"`);
    expect(response.text).toContain('<section id="first-passkey" class="notice"');
  });

  it('answers 503 with no-store when the pages were not built, and leaves other paths to the next handler', async () => {
    const unbuilt: PageAssets = { files: new Map(), url: () => undefined };
    const { response } = await get(unbuilt, `/identity/organizations/${ORGANIZATION_ID}/sso`);
    expect(response.status).toBe(503);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.text).toContain('npm run build');
    expect((await get(builtAssets(), `/identity/organizations/${ORGANIZATION_ID}/sso/extra`)).passed).toBe(true);
  });
});
