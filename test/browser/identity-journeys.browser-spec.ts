import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import {
  expectHardenedPage,
  launchChromium,
  openDevice,
  screenshot,
  sessionStorageItem,
  storedPageState,
  type BrowserDevice,
} from './support/browser.js';
import { DemoServer } from './support/demo-server.js';
import {
  accountHeading,
  API,
  CSRF_KEY,
  expectSuccess,
  fillBootstrapForm,
  pageError,
  postMalformedJson,
  responseOrPageError,
  shownRecoveryCodes,
  signIn,
  signInButton,
  uuidV7,
  waitForApi,
} from './support/identity-pages.js';

/**
 * identity-model §11.3 in headless Chromium with a CDP virtual authenticator, driving the demo's
 * pages like a person (labels, buttons, links). The journeys share one demo and run in order: the
 * owner bootstrapped in 1 signs in in 2, and so on.
 */
describe('identity demo pages in Chromium', () => {
  let demo: DemoServer;
  let browser: Browser;
  const devices: BrowserDevice[] = [];
  const journey = { organizationId: '', ownerUserId: '', codes: [] as string[] };

  async function device(): Promise<BrowserDevice> {
    const opened = await openDevice(browser, demo.origin);
    devices.push(opened);
    return opened;
  }

  let owner: BrowserDevice;

  beforeAll(async () => {
    demo = await DemoServer.start();
    browser = await launchChromium();
    owner = await device();
  });

  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
  });

  it('serves every page with no-store, a strict CSP, nosniff and no-referrer, and no inline script', async () => {
    const { page } = owner;
    for (const path of ['/identity', '/identity/bootstrap', '/identity/enroll', '/identity/recovery']) {
      await expectHardenedPage(page, await page.goto(path));
    }
    await page.goto('/identity/enroll');
    await page.getByText('This page needs the complete invitation link').waitFor();
    await screenshot(page, 'enroll-without-token');
    await page.goto('/identity/recovery');
    await page.getByLabel('Recovery code', { exact: true }).waitFor();
    await screenshot(page, 'recovery-form');
    await page.goto('/identity');
    await expectSuccess(page, signInButton(page));
    await screenshot(page, 'identity-sign-in');
  });

  it('1. bootstraps the owner: CSRF token in sessionStorage, registration options per contract, ten distinct codes shown once', async () => {
    const { page } = owner;
    await fillBootstrapForm(page, {
      secret: demo.bootstrapSecret,
      displayName: 'Ada Lovelace',
      email: 'ada@example.com',
      organizationName: 'Analytical Engines',
      organizationSlug: 'analytical-engines',
      passkeyName: 'Ada’s laptop',
    });
    await screenshot(page, 'bootstrap-form');

    // sessionStorage is read while the start request is in flight: finish ends the session and the
    // page forgets the token right after.
    let storedAtStart: string | null = 'unread';
    await page.route(`**${API.registrationStart}`, async (route) => {
      storedAtStart = await sessionStorageItem(page, CSRF_KEY);
      await route.continue();
    });
    const bootstrapped = waitForApi(page, 'POST', API.bootstrap);
    const started = waitForApi(page, 'POST', API.registrationStart);
    const finished = waitForApi(page, 'POST', API.registrationFinish);
    await page.getByRole('button', { name: 'Create owner and passkey' }).click();

    const bootstrap = await bootstrapped;
    expect(bootstrap.status()).toBe(201);
    const created = (await bootstrap.json()) as { userId: string; organization: { id: string }; csrfToken: string };
    expect(JSON.stringify(created)).not.toContain(demo.bootstrapSecret);
    journey.organizationId = created.organization.id;
    journey.ownerUserId = created.userId;

    const start = await started;
    expect(start.request().headers()['x-csrf-token']).toBe(created.csrfToken);
    expect(storedAtStart).toBe(created.csrfToken);
    expect(start.status()).toBe(200);
    const { publicKey } = (await start.json()) as { publicKey: any };
    expect(publicKey.pubKeyCredParams).toEqual([{ type: 'public-key', alg: -7 }]);
    expect(publicKey.authenticatorSelection).toEqual({
      residentKey: 'required',
      requireResidentKey: true,
      userVerification: 'required',
    });
    expect(publicKey.attestation).toBe('none');
    await page.unroute(`**${API.registrationStart}`);

    const finish = await responseOrPageError(page, finished);
    expect(finish.status()).toBe(200);
    const { replacementRecoveryCodes } = (await finish.json()) as { replacementRecoveryCodes: string[] };
    const shown = await shownRecoveryCodes(page);
    expect(shown).toHaveLength(10);
    expect(new Set(shown).size).toBe(10);
    expect(shown).toEqual(replacementRecoveryCodes);
    expect(await sessionStorageItem(page, CSRF_KEY)).toBeNull();
    await screenshot(page, 'bootstrap-codes');

    // Shown once: nothing of them is kept by the page, and a reload shows the form again.
    const stored = await storedPageState(page);
    for (const code of shown) expect(stored).not.toContain(code);
    journey.codes = shown;
  });

  it('2. signs in username-free with an empty allowCredentials', async () => {
    const { page } = owner;
    // The codes page links to sign-in; the restricted session already ended.
    await page.getByRole('link', { name: 'Continue to sign in with your passkey' }).click();
    await expectSuccess(page, signInButton(page));
    const { options, session } = await signIn(page);
    expect(options.allowCredentials).toEqual([]);
    expect(options.userVerification).toBe('required');
    expect(options.rpId).toBe('localhost');
    expect(session.assurance).toBe('passkey');
    expect(session.userId).toBe(journey.ownerUserId);
    expect(await sessionStorageItem(page, CSRF_KEY)).toBe(session.csrfToken);
    expect(await page.locator('#me-name').textContent()).toBe('Ada Lovelace');
    await page.getByRole('rowheader', { name: 'Ada’s laptop' }).waitFor();
    await screenshot(page, 'identity-account');
  });

  it('adds, renames and revokes a passkey, and revokes another device’s session singly and with revoke-others', async () => {
    const { page, authenticator } = owner;
    // The authenticator refuses to create a second passkey for an account it already holds one for
    // (excludeCredentials), as a real one would: set the first aside while the new one is created.
    const [first] = await authenticator.credentials();
    await authenticator.removeCredential(first!.credentialId);
    await page.getByLabel('Name for a new passkey', { exact: true }).fill('Spare key');
    const started = waitForApi(page, 'POST', API.registrationStart);
    const finished = waitForApi(page, 'POST', API.registrationFinish);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await expectSuccess(page, page.getByRole('rowheader', { name: 'Spare key' }));
    const { publicKey } = (await (await started).json()) as { publicKey: { excludeCredentials: unknown[] } };
    expect(publicKey.excludeCredentials).toHaveLength(1);
    const finish = await finished;
    expect(finish.status()).toBe(200);
    expect((await finish.json()) as object).not.toHaveProperty('replacementRecoveryCodes');

    // The new passkey moves to a second "device" (its own cookies and authenticator).
    const [spare] = await authenticator.credentials();
    await authenticator.removeCredential(spare!.credentialId);
    await authenticator.addCredential(first!);
    const laptop = await device();
    await laptop.authenticator.addCredential(spare!);

    await signIn(laptop.page);
    await page.reload();
    await expectSuccess(page, accountHeading(page));
    const others = page.locator('#sessions-body tr:not(.current)').filter({ hasText: 'active' });
    expect(await others.count()).toBe(1);
    await others.getByRole('button', { name: /^Revoke session/ }).click();
    await expectSuccess(page, page.getByRole('status').filter({ hasText: 'Session revoked.' }));
    await laptop.page.reload();
    await expectSuccess(laptop.page, signInButton(laptop.page));

    await signIn(laptop.page);
    await page.getByRole('button', { name: 'Sign out all other sessions' }).click();
    await expectSuccess(page, page.getByRole('status').filter({ hasText: 'Signed out 1 other session(s).' }));
    await laptop.page.reload();
    await expectSuccess(laptop.page, signInButton(laptop.page));

    await page.getByLabel('New name for passkey Spare key', { exact: true }).fill('Backup key');
    await page.getByRole('button', { name: 'Rename passkey Spare key' }).click();
    await expectSuccess(page, page.getByRole('rowheader', { name: 'Backup key' }));
    await page.getByRole('button', { name: 'Revoke passkey Backup key' }).click();
    await expectSuccess(page, page.getByRole('status').filter({ hasText: 'Passkey “Backup key” revoked.' }));
    expect(await page.getByRole('row', { name: /Backup key/ }).textContent()).toContain('revoked');
    await screenshot(page, 'identity-passkeys-sessions');
  });

  it('4. step-up fails with user verification off and succeeds with it on', async () => {
    const { page, authenticator } = owner;
    const finishes: number[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname === API.stepUpFinish) finishes.push(response.status());
    });
    const stepUp = page.getByRole('button', { name: 'Confirm it’s you with a passkey' });

    await authenticator.setUserVerified(false);
    await stepUp.click();
    const failure = await pageError(page);
    // Chromium either refuses the ceremony itself or sends an assertion without the UV flag, which
    // the server must reject: both leave the session's assurance unchanged.
    if (finishes.length > 0) {
      expect(finishes).toEqual([401]);
      expect(failure.message).toBe('Authentication failed');
      expect(failure.requestId).toMatch(/^[A-Za-z0-9._:-]{1,255}$/);
    } else {
      expect(failure.message).toMatch(/passkey request/);
    }
    expect(await page.locator('#me-assurance').textContent()).toMatch(/^passkey/);
    await screenshot(page, 'identity-step-up-without-uv');

    await authenticator.setUserVerified(true);
    const finished = waitForApi(page, 'POST', API.stepUpFinish);
    await stepUp.click();
    const finish = await finished;
    expect(finish.status()).toBe(200);
    const session = (await finish.json()) as { assurance: string; csrfToken: string };
    expect(session.assurance).toBe('step_up');
    await expectSuccess(page, page.getByRole('status').filter({ hasText: 'Confirmed' }));
    expect(await page.locator('#me-assurance').textContent()).toMatch(/^step_up/);
    expect(await sessionStorageItem(page, CSRF_KEY)).toBe(session.csrfToken);
  });

  it('replaces the recovery codes after step-up; the new set is ten distinct codes unlike the old', async () => {
    const { page } = owner;
    const replaced = waitForApi(page, 'POST', API.recoveryReplace);
    await page.getByRole('button', { name: 'Replace recovery codes' }).click();
    expect((await replaced).status()).toBe(200);
    const codes = await shownRecoveryCodes(page);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(journey.codes).not.toContain(code);
    await screenshot(page, 'identity-codes-replaced');
    journey.codes = codes;
  });

  it('5. a recovery code opens a restricted session; re-enrolment replaces the codes; the used code is rejected', async () => {
    const phone = await device();
    const { page } = phone;
    await page.goto('/identity/recovery');
    // While the restricted session exists, it can do nothing but register a passkey.
    let meDuringRecovery: { status: number; code?: string } | undefined;
    await page.route(`**${API.registrationStart}`, async (route) => {
      meDuringRecovery = await page.evaluate(async () => {
        const response = await fetch('/identity/v1/me', { credentials: 'same-origin' });
        return { status: response.status, code: ((await response.json()) as any).error?.code };
      });
      await route.continue();
    });
    const [used, spare] = journey.codes;
    await page.getByLabel('Recovery code', { exact: true }).fill(used!);
    await page.getByLabel('Passkey name', { exact: true }).fill('Recovered phone');
    const usedResponse = waitForApi(page, 'POST', API.recoveryUse);
    const finished = waitForApi(page, 'POST', API.registrationFinish);
    await page.getByRole('button', { name: 'Recover and create a passkey' }).click();
    const use = await usedResponse;
    expect(use.status()).toBe(200);
    expect(((await use.json()) as { assurance: string }).assurance).toBe('recovery');
    expect((await finished).status()).toBe(200);
    expect(meDuringRecovery).toEqual({ status: 401, code: 'authentication_required' });
    await page.unroute(`**${API.registrationStart}`);
    const codes = await shownRecoveryCodes(page);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(journey.codes).not.toContain(code);
    await screenshot(page, 'recovery-codes');

    // Finishing the enrolment revoked every session of the user, the owner's browser included.
    await owner.page.reload();
    await expectSuccess(owner.page, signInButton(owner.page));

    for (const code of [used!, spare!]) {
      await page.goto('/identity/recovery');
      await page.getByLabel('Recovery code', { exact: true }).fill(code);
      const rejected = waitForApi(page, 'POST', API.recoveryUse);
      await page.getByRole('button', { name: 'Recover and create a passkey' }).click();
      const answer = await rejected;
      expect(answer.status()).toBe(401);
      const body = (await answer.json()) as { error: { requestId: string } };
      expect(await pageError(page)).toEqual({ message: 'Authentication failed', requestId: body.error.requestId });
    }
    await screenshot(page, 'recovery-code-rejected');
    journey.codes = codes;

    const { session } = await signIn(page);
    expect(session.userId).toBe(journey.ownerUserId);
  });

  it('a revoked session cookie does not hide the pages: host routes treat it as absent (identity-http §2.1)', async () => {
    // The owner's browser still holds the cookie of the session that recovery revoked.
    const { page, context } = owner;
    expect((await context.cookies()).some((cookie) => cookie.name === '__Host-tessera_session')).toBe(true);
    for (const path of ['/identity', '/identity/recovery', '/identity/bootstrap', '/identity/enroll']) {
      const response = await page.goto(path);
      expect([path, response?.status(), response?.headers()['content-type']]).toEqual([
        path,
        200,
        'text/html; charset=utf-8',
      ]);
    }
  });

  it('invitation link → enrol → passkey → ten codes → signed in; the token never leaves the fragment', async () => {
    const link = await demo.createInvitation({
      organizationId: journey.organizationId,
      email: 'grace@example.com',
      role: 'viewer',
      invitedByUserId: journey.ownerUserId,
    });
    expect(new URL(link).search).toBe('');
    expect(new URL(link).hash).toMatch(/^#token=/);

    const invitee = await device();
    const { page } = invitee;
    const navigation = page.waitForRequest((request) => new URL(request.url()).pathname === '/identity/enroll');
    await page.goto(link);
    expect((await navigation).url()).toBe(`${demo.origin}/identity/enroll`);
    await page.waitForFunction(() => (globalThis as any).location.hash === '');
    expect(page.url()).toBe(`${demo.origin}/identity/enroll`);
    await page.getByLabel('Your name', { exact: true }).fill('Grace Hopper');
    await screenshot(page, 'enroll-form');

    const enrolled = waitForApi(page, 'POST', API.enroll);
    await page.getByRole('button', { name: 'Join and create a passkey' }).click();
    const enrolment = await enrolled;
    expect(enrolment.status()).toBe(201);
    expect(await enrolment.request().headerValue('referer')).toBeNull();
    const body = (await enrolment.json()) as {
      assurance: string;
      organizationId: string;
      membership: { role: string };
    };
    expect(body).toMatchObject({ assurance: 'recovery', organizationId: journey.organizationId });
    expect(body.membership.role).toBe('viewer');
    const codes = await shownRecoveryCodes(page);
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    await screenshot(page, 'enroll-codes');

    await page.getByRole('link', { name: 'Continue to sign in with your passkey' }).click();
    const { session } = await signIn(page);
    expect(session.userId).not.toBe(journey.ownerUserId);
    expect(await page.locator('#me-name').textContent()).toBe('Grace Hopper');

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await expectSuccess(page, signInButton(page));
    expect(await sessionStorageItem(page, CSRF_KEY)).toBeNull();
    await signIn(page);
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await expectSuccess(page, signInButton(page));
  });

  it('6. preflight: POSTing `{` to each POST identity route never answers 404, 405 or 501', async () => {
    // Anonymous on purpose: with a session cookie the CSRF stage (before route matching) would
    // answer 403 for unrouted paths too. Routes 18 and 20 answer 404 by contract while
    // administrative recovery is not configured (the demo does not configure it); device routes
    // arrive with a later issue. Organization-scoped routes answer 401 here (stage 7, anonymous).
    const organization = `/identity/v1/organizations/${uuidV7()}`;
    const serviceIdentity = `${organization}/service-identities/${uuidV7()}`;
    const routes = [
      '/identity/v1/passkeys/registration/start',
      '/identity/v1/passkeys/registration/finish',
      '/identity/v1/passkeys/authentication/start',
      '/identity/v1/passkeys/authentication/finish',
      '/identity/v1/passkeys/step-up/start',
      '/identity/v1/passkeys/step-up/finish',
      '/identity/v1/logout',
      '/identity/v1/sessions/revoke-others',
      '/identity/v1/sessions/revoke-all',
      '/identity/v1/recovery/codes/replace',
      '/identity/v1/recovery/codes/use',
      '/identity/v1/invitations/enroll',
      '/identity/v1/bootstrap',
      '/identity/v1/organizations',
      `${organization}/invitations`,
      '/identity/v1/invitations/accept',
      `${organization}/service-identities`,
      `${serviceIdentity}/credentials`,
      `${serviceIdentity}/credentials/${uuidV7()}/rotate`,
    ];
    const anonymous = await device();
    await anonymous.page.goto('/identity');
    const answers = await postMalformedJson(anonymous.page, routes);
    for (const { path, status, cacheControl } of answers) {
      expect([path, [404, 405, 501].includes(status)]).toEqual([path, false]);
      // Answered by the identity router (every identity response is no-store), not by a host
      // fallback such as Nest's own JSON parser, which would say 400 to `{` as well.
      expect([path, cacheControl]).toEqual([path, 'no-store']);
    }
  });

  it('7. client-config is no-store and free of secret words; an unknown organization answers 404 JSON', async () => {
    const { page } = owner;
    await page.goto('/identity');
    const config = await page.request.get(API.clientConfig);
    expect(config.status()).toBe(200);
    expect(config.headers()['cache-control']).toBe('no-store');
    const text = (await config.text()).toLowerCase();
    for (const word of ['secret', 'pepper', 'password', 'private', 'digest']) expect(text).not.toContain(word);

    const organizationId = uuidV7();
    expect(organizationId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await signIn(page);
    const unknown = await page.request.get(`/identity/v1/organizations/${organizationId}`);
    expect(unknown.status()).toBe(404);
    expect(unknown.headers()['content-type']).toMatch(/^application\/json/);
    // Route 23: an unknown organization is the tenancy 404 in the identity envelope.
    expect(await unknown.json()).toMatchObject({
      error: { code: 'not_found', message: 'The requested identity resource was not found', retryable: false },
    });
  });

  it('no page threw and no Content-Security-Policy violation happened on any device', () => {
    expect(devices.flatMap((opened) => opened.problems)).toEqual([]);
  });
});
