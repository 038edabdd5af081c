import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import {
  expectHardenedPage,
  expectServedAsHtml,
  readWhileInFlight,
  screenshot,
  sessionStorageItem,
  storedPageState,
  type BrowserDevice,
  DESKTOP_VIEWPORT,
  expectNoHorizontalOverflow,
  PHONE_VIEWPORT,
} from './support/browser.js';
import type { DemoServer } from './support/demo-server.js';
import { BrowserHarness } from './support/harness.js';
import {
  addPasskeyAsideFirst,
  expectClientConfigWithoutSecrets,
  expectRecoveryCodeRejected,
  expectRegistrationOptionsPerContract,
  expectReplacedCodes,
  expectStepUpRefused,
  handOverNewPasskey,
  identityPostRoutes,
  meAnswer,
  renamePasskey,
  revokeOnlyOtherSession,
  revokePasskey,
  signOutOtherSessions,
  submitRecovery,
} from './support/identity-account.js';
import {
  API,
  collectResponses,
  CSRF_KEY,
  expectSignedOutOnReload,
  expectStatus,
  expectSuccess,
  expectTenDistinctCodes,
  fillBootstrapForm,
  FIRST_OWNER,
  openEnrolmentLink,
  postMalformedJson,
  responseOrPageError,
  shownRecoveryCodes,
  signIn,
  signInButton,
  signOutWith,
  typedByHand,
  uuidV7,
  waitForApi,
  type EnrollmentCreated,
} from './support/identity-pages.js';

/**
 * identity-model §11.3 in headless Chromium with a CDP virtual authenticator, driving the demo's
 * pages like a person (labels, buttons, links). The journeys share one demo and run in order: the
 * owner bootstrapped in 1 signs in in 2, and so on.
 */
describe('identity demo pages in Chromium', () => {
  let harness: BrowserHarness;
  let demo: DemoServer;
  let owner: BrowserDevice;
  const journey = { organizationId: '', ownerUserId: '', codes: [] as string[] };
  const device = () => harness.device();

  beforeAll(async () => {
    harness = await BrowserHarness.start();
    demo = harness.demo;
    owner = await device();
  });

  afterAll(() => harness?.stop());

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
    await fillBootstrapForm(page, { secret: demo.bootstrapSecret, ...FIRST_OWNER });
    await screenshot(page, 'bootstrap-form');

    // sessionStorage is read while the start request is in flight: finish ends the session and the
    // page forgets the token right after.
    const storedAtStart = await readWhileInFlight(page, API.registrationStart, () =>
      sessionStorageItem(page, CSRF_KEY),
    );
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
    expect(storedAtStart.value()).toBe(created.csrfToken);
    expect(start.status()).toBe(200);
    expectRegistrationOptionsPerContract(((await start.json()) as { publicKey: any }).publicKey);
    await storedAtStart.stop();

    const finish = await responseOrPageError(page, finished);
    expect(finish.status()).toBe(200);
    const { replacementRecoveryCodes } = (await finish.json()) as { replacementRecoveryCodes: string[] };
    const shown = await shownRecoveryCodes(page);
    expectTenDistinctCodes(shown);
    expect(shown).toEqual(replacementRecoveryCodes);
    expect(await sessionStorageItem(page, CSRF_KEY)).toBeNull();
    await screenshot(page, 'bootstrap-codes');
    // "Download as .txt" saves the ten codes, made in the page.
    const saving = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download as .txt' }).click();
    const download = await saving;
    expect(download.suggestedFilename()).toMatch(/^tessera-recovery-codes-.+\.txt$/);
    const saved = readFileSync((await download.path())!, 'utf8');
    for (const code of shown) expect(saved).toContain(code);
    expect(await page.getByRole('button', { name: 'Print' }).isVisible()).toBe(true);
    await page.setViewportSize(PHONE_VIEWPORT);
    await expectNoHorizontalOverflow(page);
    await screenshot(page, 'bootstrap-codes-phone');
    await page.setViewportSize(DESKTOP_VIEWPORT);

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
    const { setAside, excludeCredentials, finish } = await addPasskeyAsideFirst(page, authenticator, 'Spare key');
    expect(excludeCredentials).toHaveLength(1);
    expect(finish.status()).toBe(200);
    expect((await finish.json()) as object).not.toHaveProperty('replacementRecoveryCodes');

    // The new passkey moves to a second "device" (its own cookies and authenticator).
    const laptop = await device();
    await handOverNewPasskey(authenticator, laptop.authenticator, setAside);

    await signIn(laptop.page);
    await revokeOnlyOtherSession(page);
    await expectSignedOutOnReload(laptop.page);

    await signIn(laptop.page);
    await signOutOtherSessions(page, 1);
    await expectSignedOutOnReload(laptop.page);

    await renamePasskey(page, 'Spare key', 'Backup key');
    await revokePasskey(page, 'Backup key');
    expect(await page.getByRole('row', { name: /Backup key/ }).textContent()).toContain('revoked');
    await screenshot(page, 'identity-passkeys-sessions');
  });

  it('4. step-up fails with user verification off and succeeds with it on', async () => {
    const { page, authenticator } = owner;
    const finishes = collectResponses(page, 'POST', API.stepUpFinish);
    const stepUp = page.getByRole('button', { name: 'Confirm it’s you with a passkey' });

    await authenticator.setUserVerified(false);
    await stepUp.click();
    await expectStepUpRefused(page, finishes.responses);
    finishes.stop();
    await screenshot(page, 'identity-step-up-without-uv');

    await authenticator.setUserVerified(true);
    const finished = waitForApi(page, 'POST', API.stepUpFinish);
    await stepUp.click();
    const finish = await finished;
    expect(finish.status()).toBe(200);
    const session = (await finish.json()) as { assurance: string; csrfToken: string };
    expect(session.assurance).toBe('step_up');
    await expectStatus(page, 'Confirmed');
    expect(await page.locator('#me-assurance').textContent()).toMatch(/^step_up/);
    expect(await sessionStorageItem(page, CSRF_KEY)).toBe(session.csrfToken);
  });

  it('replaces the recovery codes after step-up; the new set is ten distinct codes unlike the old', async () => {
    const { page } = owner;
    const replaced = waitForApi(page, 'POST', API.recoveryReplace);
    await page.getByRole('button', { name: 'Replace recovery codes' }).click();
    expect((await replaced).status()).toBe(200);
    const codes = await shownRecoveryCodes(page);
    expectReplacedCodes(codes, journey.codes);
    await screenshot(page, 'identity-codes-replaced');
    journey.codes = codes;
  });

  it('5. a recovery code opens a restricted session; re-enrolment replaces the codes; the used code is rejected', async () => {
    const { page } = await device();
    await page.goto('/identity/recovery');
    // While the restricted session exists, it can do nothing but register a passkey.
    const meDuringRecovery = await readWhileInFlight(page, API.registrationStart, () => meAnswer(page));
    const [used, spare] = journey.codes;
    const usedResponse = waitForApi(page, 'POST', API.recoveryUse);
    const finished = waitForApi(page, 'POST', API.registrationFinish);
    await submitRecovery(page, typedByHand(used!), 'Recovered phone');
    const use = await usedResponse;
    expect(use.status()).toBe(200);
    expect(((await use.json()) as { assurance: string }).assurance).toBe('recovery');
    expect((await finished).status()).toBe(200);
    expect(meDuringRecovery.value()).toEqual({ status: 401, code: 'authentication_required' });
    await meDuringRecovery.stop();
    const codes = await shownRecoveryCodes(page);
    expectReplacedCodes(codes, journey.codes);
    await screenshot(page, 'recovery-codes');

    // Finishing the enrolment revoked every session of the user, the owner's browser included.
    await expectSignedOutOnReload(owner.page);

    for (const code of [used!, spare!]) await expectRecoveryCodeRejected(page, code);
    await screenshot(page, 'recovery-code-rejected');
    journey.codes = codes;

    const { session } = await signIn(page);
    expect(session.userId).toBe(journey.ownerUserId);
  });

  it('a revoked session cookie does not hide the pages: host routes treat it as absent (identity-http §2.1)', async () => {
    // The owner's browser still holds the cookie of the session that recovery revoked.
    const { page, context } = owner;
    expect((await context.cookies()).some((cookie) => cookie.name === '__Host-tessera_session')).toBe(true);
    await expectServedAsHtml(page, ['/identity', '/identity/recovery', '/identity/bootstrap', '/identity/enroll']);
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

    const { page } = await device();
    await openEnrolmentLink(page, link, demo.origin);
    await page.getByLabel('Your name', { exact: true }).fill('Grace Hopper');
    await screenshot(page, 'enroll-form');

    const enrolled = waitForApi(page, 'POST', API.enroll);
    await page.getByRole('button', { name: 'Join and create a passkey' }).click();
    const enrolment = await enrolled;
    expect(enrolment.status()).toBe(201);
    expect(await enrolment.request().headerValue('referer')).toBeNull();
    const body = (await enrolment.json()) as EnrollmentCreated;
    expect(body).toMatchObject({ assurance: 'recovery', organizationId: journey.organizationId });
    expect(body.membership.role).toBe('viewer');
    expectTenDistinctCodes(await shownRecoveryCodes(page));
    await screenshot(page, 'enroll-codes');

    await page.getByRole('link', { name: 'Continue to sign in with your passkey' }).click();
    const { session } = await signIn(page);
    expect(session.userId).not.toBe(journey.ownerUserId);
    expect(await page.locator('#me-name').textContent()).toBe('Grace Hopper');

    await signOutWith(page, page.getByRole('button', { name: 'Sign out', exact: true }));
    expect(await sessionStorageItem(page, CSRF_KEY)).toBeNull();
    await signIn(page);
    await signOutWith(page, page.getByRole('button', { name: 'Sign out everywhere' }));
  });

  it('6. preflight: POSTing `{` to each POST identity route never answers 404, 405 or 501', async () => {
    // Anonymous on purpose: with a session cookie the CSRF stage (before route matching) would
    // answer 403 for unrouted paths too. Organization-scoped routes answer 401 here (stage 7,
    // anonymous).
    const routes = identityPostRoutes();
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
    await expectClientConfigWithoutSecrets(page);

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
    expect(harness.problems()).toEqual([]);
  });
});
