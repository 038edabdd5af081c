import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectHardenedPage, screenshot, sessionStorageItem, type BrowserDevice } from './support/browser.js';
import { CliDeviceClient } from './support/cli-device-client.js';
import { HttpDeviceClient, type DeviceClient } from './support/device-client.js';
import {
  capabilityBox,
  chooseOrganization,
  codeField,
  confirmHeading,
  decide,
  DEVICE_API,
  enterCode,
  organizationSelect,
  requestIdOf,
  shownFacts,
} from './support/device-pages.js';
import { BrowserHarness } from './support/harness.js';
import {
  API,
  bootstrapOwner,
  CSRF_KEY,
  enrollWithLink,
  expectSuccess,
  FIRST_OWNER,
  pageError,
  signIn,
  signInButton,
  waitForApi,
} from './support/identity-pages.js';

/** identity-model §11.3: the user-code alphabet and shape. */
const USER_CODE = /^[23456789ABCDEFGHJKLMNPQRSTUVWXYZ]{4}-[23456789ABCDEFGHJKLMNPQRSTUVWXYZ]{4}$/;
const REQUESTED = ['identity.profile', 'identity.organizations', 'package.publish'] as const;

/**
 * Issue 13's device journey (identity-model §11.3, device steps) in headless Chromium: `tessera
 * login` (the built CLI, file credential store in a temp folder) started by the test, its code typed
 * on `/device` (lower case, no dash), the organization chosen, one capability unticked, approved;
 * the CLI finishes and `tessera whoami` shows the narrowed scopes. A second run is denied on the
 * page and the CLI exits 1 with the denial; signed-out visitors go to sign in and come back; a
 * wrong code shows the envelope's message and request ID. A second user (a viewer) approves from
 * a plain RFC 8628 client over HTTP. The tests share one demo and run in order.
 */
describe('device verification page /device in Chromium', () => {
  let harness: BrowserHarness;
  let owner: BrowserDevice;
  let client: DeviceClient;
  let ownerUserId = '';
  let organizationId = '';

  beforeAll(async () => {
    harness = await BrowserHarness.start();
    owner = await harness.device();
    const created = await bootstrapOwner(owner.page, { secret: harness.demo.bootstrapSecret, ...FIRST_OWNER });
    ownerUserId = created.userId;
    organizationId = created.organizationId;
    client = new CliDeviceClient(harness.demo.origin);
  });

  afterAll(async () => {
    await client?.close();
    await harness?.stop();
  });

  it('sends a signed-out visitor of /device to sign in with a passkey, then brings them back to it', async () => {
    const { page } = owner;
    // The bootstrap's setup session ended with the passkey: this browser is signed out.
    await page.goto('/device');
    await page.waitForURL(`${harness.demo.origin}/identity`);
    await expectSuccess(page, page.getByText('Sign in to continue to the device confirmation', { exact: false }));
    const signedIn = waitForApi(page, 'POST', API.authenticationFinish);
    await signInButton(page).click();
    expect((await signedIn).status()).toBe(200);
    await page.waitForURL(`${harness.demo.origin}/device`);
    await expectSuccess(page, codeField(page));
  });

  it('serves /device with no-store, a strict CSP, nosniff and no-referrer, and no inline script', async () => {
    const { page } = owner;
    await expectHardenedPage(page, await page.goto('/device'));
    await expectSuccess(page, codeField(page));
    expect(await page.locator('#tab-notice').isVisible()).toBe(false);
    await screenshot(page, 'device-code');
  });

  it('approves a CLI login typed in lower case without the dash, for a chosen organization, with one capability unticked; whoami shows the narrowed scopes', async () => {
    const { page } = owner;
    const login = await client.start(REQUESTED);
    expect(login.userCode).toMatch(USER_CODE);
    expect(login.verificationUri).toBe(`${harness.demo.origin}/device`);

    await page.goto(login.verificationUri);
    const inspected = await enterCode(page, login.userCode.replace('-', '').toLowerCase());
    expect(inspected.status()).toBe(200);
    // The page normalized what was typed before calling route 35.
    expect(inspected.request().postDataJSON()).toEqual({ userCode: login.userCode });
    const grant = (await inspected.json()) as { clientName: string; createdAt: string };
    expect(grant.clientName).toBe('Tessera CLI');
    expect(await shownFacts(page)).toEqual({
      client: grant.clientName,
      code: login.userCode,
      requestedAt: grant.createdAt,
    });
    expect(await page.locator('#phishing-warning').innerText()).toContain(
      'Approve only a code you started yourself, in your own terminal',
    );
    expect(await page.locator('#capability-list label').allInnerTexts()).toEqual(
      expect.arrayContaining([
        'See your name and account (identity.profile)',
        'See the organizations you belong to (identity.organizations)',
        'Publish packages on your behalf (package.publish)',
      ]),
    );
    expect(await page.locator('#capability-list input:checked').count()).toBe(3);

    // No organization is chosen for the user: approving first asks for one, and nothing is sent.
    expect(await organizationSelect(page).inputValue()).toBe('');
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    expect((await pageError(page)).message).toBe('Choose the organization the device may act in.');
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('organization');

    await chooseOrganization(page, organizationId);
    await capabilityBox(page, 'Publish packages on your behalf').uncheck();
    await screenshot(page, 'device-confirm');
    const { response, body } = await decide(page, 'Approve', 'Device approved');
    expect(response.status()).toBe(200);
    expect(body).toEqual({
      userCode: login.userCode,
      organizationId,
      capabilities: expect.arrayContaining(['identity.profile', 'identity.organizations']),
    });
    expect((body as { capabilities: string[] }).capabilities).toHaveLength(2);
    await screenshot(page, 'device-approved');

    expect((await login.finished).exitCode).toBe(0);
    expect(await client.whoami()).toEqual({
      userId: ownerUserId,
      displayName: FIRST_OWNER.displayName,
      organizationIds: [organizationId],
      scopes: ['identity.organizations', 'identity.profile'],
    });
  });

  it('denies a second login on the page: the CLI exits 1 with the denial message', async () => {
    const { page } = owner;
    const login = await client.start(REQUESTED);
    await page.goto('/device');
    expect((await enterCode(page, login.userCode)).status()).toBe(200);
    await expectSuccess(page, confirmHeading(page));
    const { response, body } = await decide(page, 'Deny', 'Device sign-in denied');
    expect(response.status()).toBe(200);
    expect(body).toEqual({ userCode: login.userCode });

    const outcome = await login.finished;
    expect(outcome).toEqual({ exitCode: 1, message: expect.stringContaining('The login was denied in the browser.') });
  });

  it('shows the envelope’s message and request ID for a code nobody started', async () => {
    const { page } = owner;
    await page.goto('/device');
    const inspected = await enterCode(page, ' zzzz-zzzz ');
    expect(inspected.status()).toBe(404);
    expect(inspected.request().postDataJSON()).toEqual({ userCode: 'ZZZZ-ZZZZ' });
    const envelope = (await inspected.json()) as { error: { message: string; requestId: string } };
    expect(await pageError(page)).toEqual({ message: envelope.error.message, requestId: envelope.error.requestId });
    expect(envelope.error.requestId).toBe(requestIdOf(inspected));
    // Still on code entry, nothing else shown.
    expect(await confirmHeading(page).isVisible()).toBe(false);
    await screenshot(page, 'device-wrong-code');
    expect(new URL(inspected.url()).pathname).toBe(DEVICE_API.inspect);
  });

  it('says up front what a viewer cannot approve in the chosen organization, and approves the rest', async () => {
    const link = await harness.demo.createInvitation({
      organizationId,
      email: 'grace@example.com',
      role: 'viewer',
      invitedByUserId: ownerUserId,
    });
    const { page } = await harness.device();
    await enrollWithLink(page, link, 'Grace Hopper');
    await signIn(page);
    const viewerClient = new HttpDeviceClient(harness.demo.origin);
    try {
      const login = await viewerClient.start(REQUESTED);
      await page.goto('/device');
      expect((await enterCode(page, login.userCode)).status()).toBe(200);
      await expectSuccess(page, confirmHeading(page));
      const publish = capabilityBox(page, 'Publish packages on your behalf');
      expect(await publish.isDisabled()).toBe(false);

      await chooseOrganization(page, organizationId);
      expect(await publish.isDisabled()).toBe(true);
      expect(await publish.isChecked()).toBe(false);
      expect(await page.locator('#capability-note').innerText()).toBe(
        'In Analytical Engines your role (viewer) does not allow package.publish; the device gets the rest only.',
      );
      await screenshot(page, 'device-viewer');
      const { body } = await decide(page, 'Approve', 'Device approved');
      expect((body as { capabilities: string[] }).capabilities.sort()).toEqual([
        'identity.organizations',
        'identity.profile',
      ]);
      expect((await login.finished).exitCode).toBe(0);
      expect((await viewerClient.whoami()).scopes).toEqual(['identity.organizations', 'identity.profile']);
    } finally {
      await viewerClient.close();
    }
  });

  it('in a new tab of the signed-in browser takes the CSRF token over from the signed-in tab', async () => {
    const tab = await owner.context.newPage();
    await tab.goto('/device');
    await expectSuccess(tab, codeField(tab));
    expect(await tab.locator('#tab-notice').isVisible()).toBe(false);
    expect(await sessionStorageItem(tab, CSRF_KEY)).toBe(await sessionStorageItem(owner.page, CSRF_KEY));
    const login = await client.start(['identity.profile']);
    expect((await enterCode(tab, login.userCode)).status()).toBe(200);
    await expectSuccess(tab, confirmHeading(tab));
    await chooseOrganization(tab, organizationId);
    const { response } = await decide(tab, 'Approve', 'Device approved');
    expect(response.status()).toBe(200);
    expect((await login.finished).exitCode).toBe(0);
    await tab.close();
  });

  it('in a new tab with no signed-in tab open to share a token says how to go on, and shows the refusal', async () => {
    const kept = await sessionStorageItem(owner.page, CSRF_KEY);
    await owner.page.evaluate((key) => (globalThis as any).sessionStorage.removeItem(key), CSRF_KEY);
    try {
      const tab = await owner.context.newPage();
      await tab.goto('/device');
      await expectSuccess(tab, codeField(tab));
      expect(await tab.locator('#tab-notice').innerText()).toContain('this browser tab has no sign-in token');
      const inspected = await enterCode(tab, 'ZZZZ-ZZZZ');
      expect(inspected.status()).toBe(403);
      const envelope = (await inspected.json()) as { error: { code: string; message: string; requestId: string } };
      expect(envelope.error.code).toBe('csrf_invalid');
      expect(await pageError(tab)).toEqual({ message: envelope.error.message, requestId: envelope.error.requestId });
      await tab.close();
    } finally {
      await owner.page.evaluate(
        ([key, token]) => (globalThis as any).sessionStorage.setItem(key, token),
        [CSRF_KEY, kept],
      );
    }
  });

  it('saw no page error or CSP violation on any device', () => {
    expect(harness.problems()).toEqual([]);
  });
});
