import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { screenshot } from './support/browser.js';
import { BrowserHarness } from './support/harness.js';

/**
 * What a person meets first: the landing page at `/` linking the demo's pages, and the API
 * reference at `/identity/docs` (Swagger UI served from the demo, no CDN) rendering the OpenAPI
 * document of the identity routes — without a page error or a CSP violation.
 */
describe('landing page and API docs in Chromium', () => {
  let harness: BrowserHarness;

  beforeAll(async () => {
    harness = await BrowserHarness.start();
  });

  afterAll(async () => {
    await harness?.stop();
  });

  it('the landing page links the pages and the API docs, and no link is dead', async () => {
    const { page } = await harness.device();
    const response = await page.goto('/');
    expect(response?.status()).toBe(200);
    expect(response?.headers()['x-powered-by']).toBeUndefined();
    const links = await page.locator('main a').evaluateAll((anchors) => anchors.map((a) => a.getAttribute('href')));
    expect(links).toEqual(expect.arrayContaining(['/identity', '/identity/bootstrap', '/identity/docs']));
    for (const href of new Set(links.filter((link): link is string => link !== null && link.startsWith('/')))) {
      // Fetched with the page's cookies but without running the page: `/device` sends a signed-out
      // visitor on to `/identity`, which would race the next navigation.
      const opened = await page.request.get(href, { maxRedirects: 0 });
      // Pages answer 200; guarded APIs it links (`/account`, `/metrics`) answer 401 to a visitor.
      expect([href, opened.status() === 200 || opened.status() === 401]).toEqual([href, true]);
    }
  });

  it('the API docs render every identity operation from the served document, with nothing fetched off-origin', async () => {
    const { page } = await harness.device();
    const offOrigin: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(harness.demo.origin) && !request.url().startsWith('data:'))
        offOrigin.push(request.url());
    });
    const document = (await (await fetch(`${harness.demo.origin}/identity/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const response = await page.goto('/identity/docs');
    expect(response?.status()).toBe(200);
    await page.locator('.opblock').first().waitFor({ state: 'visible', timeout: 30_000 });
    const operations = Object.values(document.paths).reduce((count, item) => count + Object.keys(item).length, 0);
    expect(await page.locator('.opblock').count()).toBe(operations);
    await expect(
      page.locator('.opblock-summary-path', { hasText: '/identity/v1/bootstrap' }).count(),
    ).resolves.toBeGreaterThan(0);
    await screenshot(page, 'api-docs');
    expect(offOrigin).toEqual([]);
    expect(harness.problems()).toEqual([]);
  });
});
