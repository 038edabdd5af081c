import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startOidcTestIdp, type OidcTestIdp } from '../support/federation/oidc-idp.js';
import {
  expectHardenedPage,
  screenshot,
  sessionStorageItem,
  storedPageState,
  type BrowserDevice,
} from './support/browser.js';
import {
  addFirstPasskey,
  detailsField,
  documentCookies,
  FEDERATION_CSRF_COOKIE,
  providerCells,
  providerRow,
  providersPath,
  signInThroughSso,
  ssoPagePath,
  submitOidcProvider,
  submitSamlProvider,
  toggleProvider,
  unsafeCall,
} from './support/federation-pages.js';
import { freePort } from './support/demo-server.js';
import { BrowserHarness } from './support/harness.js';
import { startSamlBrowserIdp, type SamlBrowserIdp } from './support/saml-browser-idp.js';
import { meAnswer } from './support/identity-account.js';
import {
  API,
  bootstrapOwner,
  collectResponses,
  CSRF_KEY,
  expectStatus,
  expectSuccess,
  FIRST_OWNER,
  pageError,
  shownRecoveryCodes,
  signIn,
  uuidV7,
  waitForApi,
} from './support/identity-pages.js';
import { expectCopied, openOrganization, openOrganizations } from './support/organization-pages.js';

/** The OIDC provider the owner registers: the in-process `oidc-provider` IdP, JIT on. */
const PROVIDER = {
  providerId: 'acme-idp',
  displayName: 'Acme Workforce',
  clientId: 'tessera-demo',
  clientSecret: randomBytes(24).toString('base64url'),
};
/** The employee the IdP signs in (its `sub`): unknown to the demo until JIT creates the account. */
const EMPLOYEE_SUBJECT = 'employee-4711';
const ORGANIZATION = FIRST_OWNER.organizationName;
const TOKEN_43 = /^[A-Za-z0-9_-]{43}$/;

/**
 * Issue 14's acceptance "Real peers" in headless Chromium: an OpenID Provider built with
 * `oidc-provider` runs inside the test; the organization owner registers it through the
 * organization page's "Single sign-on" panel; a new user signs in through the organization's
 * sign-in page with JIT, lands as `viewer`, registers a first passkey (FED1), is refused
 * step-up-only actions until a passkey step-up; disabling the provider ends federated sessions at
 * once (`session_revoked`). Then a SAML provider registered from its metadata signs a new user in
 * through the HTTP-POST binding with a really signed response. The tests share one demo and the
 * two IdPs and run in order.
 */
describe('enterprise single sign-on (OIDC and SAML) in Chromium', () => {
  let harness: BrowserHarness;
  let idp: OidcTestIdp;
  let saml: SamlBrowserIdp;
  let owner: BrowserDevice;
  let employee: BrowserDevice;
  let secondBrowser: BrowserDevice;
  let organizationId = '';
  const callbackUrl = () =>
    `${harness.demo.origin}/identity/v1/federation/${organizationId}/${PROVIDER.providerId}/callback`;

  beforeAll(async () => {
    idp = await startOidcTestIdp();
    saml = await startSamlBrowserIdp();
    harness = await BrowserHarness.start();
    owner = await harness.device();
  });

  afterAll(async () => {
    await harness?.stop();
    await idp?.close();
    await saml?.close();
  });

  it('serves the organization sign-in page hardened, and says so for an unknown organization', async () => {
    const { page } = owner;
    await expectHardenedPage(page, await page.goto(ssoPagePath(uuidV7())));
    await expectSuccess(page, page.getByText('There is no organization at this address'));
    expect(await page.locator('#sso-providers li').count()).toBe(0);
    await page.goto('/identity/organizations/not-an-id/sso');
    await expectSuccess(page, page.getByText('There is no organization at this address'));
  });

  it('the owner bootstraps; the organization offers no single sign-on yet', async () => {
    const { page, context } = owner;
    const created = await bootstrapOwner(page, { secret: harness.demo.bootstrapSecret, ...FIRST_OWNER });
    organizationId = created.organizationId;
    await page.goto(ssoPagePath(organizationId));
    await expectSuccess(page, page.getByText('This organization offers no single sign-on right now'));
    await signIn(page);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: harness.demo.origin });
    await openOrganization(page, `/identity/organizations/${organizationId}`, ORGANIZATION);
    await expectSuccess(page, page.getByText('No single sign-on providers yet.'));
    const signInPage = page.locator('#sso-sign-in-page');
    expect(await signInPage.getAttribute('href')).toBe(ssoPagePath(organizationId));
    expect(await signInPage.textContent()).toBe(`${harness.demo.origin}${ssoPagePath(organizationId)}`);
  });

  it('the owner registers the OIDC provider in the panel (JIT on); it shows the redirect URI to paste, never the secret', async () => {
    const { page } = owner;
    idp.addClient({ clientId: PROVIDER.clientId, clientSecret: PROVIDER.clientSecret, redirectUris: [callbackUrl()] });
    const posts = await submitOidcProvider(page, organizationId, { ...PROVIDER, issuer: idp.issuer, jit: true });
    expect(posts.map((response) => response.status()).at(-1)).toBe(201);
    expect(posts.at(-1)!.request().postDataJSON()).toEqual({
      providerId: PROVIDER.providerId,
      protocol: 'oidc',
      displayName: PROVIDER.displayName,
      issuer: idp.issuer,
      clientId: PROVIDER.clientId,
      clientSecret: PROVIDER.clientSecret,
      jit: true,
    });
    const view = (await posts.at(-1)!.json()) as Record<string, unknown>;
    expect(view).toMatchObject({ state: 'enabled', jit: true, hasClientSecret: true, redirectUri: callbackUrl() });
    expect(JSON.stringify(view)).not.toContain(PROVIDER.clientSecret);
    await expectStatus(page, `Provider “${PROVIDER.displayName}” added and enabled`);

    // The redirect URI is publicBaseUrl + /identity/v1/federation/{orgId}/{providerId}/callback.
    expect(await detailsField(page, 'Redirect URI').inputValue()).toBe(callbackUrl());
    await expectCopied(page, 'Copy the redirect URI', 'redirect URI was copied', callbackUrl());
    expect(await providerCells(page, PROVIDER.displayName)).toEqual([
      `${PROVIDER.displayName}${PROVIDER.providerId}`,
      'OIDC',
      'enabled',
      '0',
      'on (new users join as viewer)',
    ]);
    expect(await page.locator('#sso-details').textContent()).toContain('stored (never shown)');
    expect(await storedPageState(page)).not.toContain(PROVIDER.clientSecret);
    expect(await page.locator('#oidc-client-secret').inputValue()).toBe('');
    await screenshot(page, 'federation-sso-panel-oidc');

    // The sign-in page tells a visitor who is signed in already that signing in there links the provider.
    await page.getByRole('link', { name: `${harness.demo.origin}${ssoPagePath(organizationId)}` }).click();
    await expectSuccess(page, page.getByRole('link', { name: `Sign in with ${PROVIDER.displayName}` }));
    expect(await page.locator('#sso-signed-in').textContent()).toContain(
      `You are already signed in as ${FIRST_OWNER.displayName}`,
    );
    await page.goBack();
    await expectSuccess(page, providerRow(page, PROVIDER.displayName));
  });

  it('refuses a taken provider ID (409), an issuer the policy refuses (400) and an unreachable one (503), saying what to check', async () => {
    const { page } = owner;
    const again = await submitOidcProvider(page, organizationId, { ...PROVIDER, issuer: idp.issuer, jit: false });
    expect(again.map((response) => response.status()).at(-1)).toBe(409);
    const taken = await pageError(page);
    expect(taken.message).toMatch(
      /^The resource changed; retry the request\. This organization already has a provider with that ID/,
    );
    expect(taken.requestId).toMatch(/^[A-Za-z0-9._:-]{1,255}$/);

    const refused = await submitOidcProvider(page, organizationId, {
      ...PROVIDER,
      providerId: 'plain-http',
      issuer: 'http://idp.example.com',
      jit: false,
    });
    expect(refused.map((response) => response.status()).at(-1)).toBe(400);
    expect((await pageError(page)).message).toMatch(
      /^The request is invalid\. Check the provider ID .* the issuer \(https/,
    );

    const unreachable = await submitOidcProvider(page, organizationId, {
      ...PROVIDER,
      providerId: 'unreachable',
      issuer: `http://127.0.0.1:${await freePort()}`,
      jit: false,
    });
    expect(unreachable.map((response) => response.status()).at(-1)).toBe(503);
    expect((await pageError(page)).message).toMatch(
      /^The identity service is temporarily unavailable\. The identity provider could not be reached/,
    );
    expect(await page.locator('#sso-body tr').count()).toBe(1);
  });

  it('a SAML provider shows the ACS URL, SP entity ID and metadata URL to paste; deleting it removes it', async () => {
    const { page } = owner;
    const certificate = saml.idp.certificatePem;
    const posts = await submitSamlProvider(page, organizationId, {
      providerId: 'okta-saml',
      displayName: 'Okta (SAML)',
      idpEntityId: 'http://www.okta.com/exk-demo',
      ssoUrl: 'http://localhost:9/sso/saml',
      certificatesPem: certificate,
      signaturePolicy: 'both',
      jit: false,
    });
    expect(posts.map((response) => response.status()).at(-1)).toBe(201);
    expect(posts.at(-1)!.request().postDataJSON()).toMatchObject({
      protocol: 'saml',
      signaturePolicy: 'both',
      jit: false,
      idpCertificatesPem: [certificate.replace(/\r\n?/g, '\n').trim() + '\n'],
    });
    const base = `${harness.demo.origin}/identity/v1/federation/${organizationId}/okta-saml`;
    expect(await detailsField(page, 'ACS URL').inputValue()).toBe(`${base}/callback`);
    expect(await detailsField(page, 'SP entity ID').inputValue()).toBe(`${base}/saml/metadata`);
    expect(await detailsField(page, 'Metadata URL').inputValue()).toBe(`${base}/saml/metadata`);
    await expectCopied(page, 'Copy the ACS URL', 'ACS URL was copied', `${base}/callback`);
    expect(await providerCells(page, 'Okta (SAML)')).toEqual(['Okta (SAML)okta-saml', 'SAML', 'enabled', '0', 'off']);
    await screenshot(page, 'federation-sso-panel-saml');

    const deleted = waitForApi(page, 'DELETE', `${providersPath(organizationId)}/okta-saml`);
    await page.getByRole('button', { name: 'Delete provider Okta (SAML)' }).click();
    expect((await deleted).status()).toBe(204);
    await expectStatus(page, 'Provider “Okta (SAML)” deleted');
    expect(await providerRow(page, 'Okta (SAML)').count()).toBe(0);
    expect(await page.locator('#sso-details').isHidden()).toBe(true);
  });

  it('a new user signs in through the organization’s sign-in page and the IdP (JIT), lands signed in as viewer', async () => {
    employee = await harness.device();
    const { page } = employee;
    await page.goto(ssoPagePath(organizationId));
    const link = page.getByRole('link', { name: `Sign in with ${PROVIDER.displayName}` });
    await expectSuccess(page, link);
    expect(await link.getAttribute('href')).toBe(
      `${harness.demo.origin}/identity/v1/federation/${organizationId}/${PROVIDER.providerId}/start`,
    );
    expect(await page.locator('#sso-providers li').count()).toBe(1);
    await screenshot(page, 'federation-sign-in-page');

    idp.nextLogin(EMPLOYEE_SUBJECT, { name: 'Grace Hopper' });
    const callback = await signInThroughSso(page, organizationId, PROVIDER.displayName);
    expect(callback.status()).toBe(303);
    expect(callback.url().startsWith(`${callbackUrl()}?`)).toBe(true);
    expect(await callback.headerValue('location')).toBe(`${harness.demo.origin}/identity`);

    // The CSRF token came over in the non-HttpOnly cookie; the page moved it into sessionStorage and cleared the cookie.
    const handedOver = (await callback.headersArray())
      .filter(({ name }) => name.toLowerCase() === 'set-cookie')
      .map(({ value }) => value)
      .find((value) => value.startsWith(`${FEDERATION_CSRF_COOKIE}=`));
    const token = handedOver?.slice(FEDERATION_CSRF_COOKIE.length + 1).split(';')[0];
    expect(token).toMatch(TOKEN_43);
    expect(handedOver).not.toMatch(/HttpOnly/i);
    expect(await sessionStorageItem(page, CSRF_KEY)).toBe(token);
    expect(await documentCookies(page)).not.toContain(FEDERATION_CSRF_COOKIE);

    expect(await page.locator('#me-assurance').textContent()).toBe('session (federated sign-in)');
    await expectSuccess(page, page.getByRole('heading', { name: 'Add your first passkey now' }));
    expect(await page.locator('#first-passkey-text').textContent()).toContain('without a passkey check');
    expect(await page.locator('#sessions-body tr.current').textContent()).toContain('oidc');
    await screenshot(page, 'federation-landed-first-passkey');

    await openOrganizations(page);
    expect(await page.locator('#organizations-body tr').count()).toBe(1);
    expect(await page.getByRole('row', { name: new RegExp(ORGANIZATION) }).textContent()).toContain('viewer');
  });

  it('registers a first passkey within five minutes of the federated sign-in (FED1)', async () => {
    const { page } = employee;
    await page.goto('/identity');
    await expectSuccess(page, page.getByRole('heading', { name: 'Add your first passkey now' }));
    await addFirstPasskey(page, 'Work laptop');
    expect(await page.getByRole('rowheader', { name: 'Work laptop' }).count()).toBe(1);
    expect(await page.locator('#first-passkey').isHidden()).toBe(true);
    expect(await employee.authenticator.credentials()).toHaveLength(1);
  });

  it('is refused step-up-only actions until a passkey step-up, then they succeed', async () => {
    const { page } = employee;
    // A second passkey is no longer FED1: the federated session needs a recent passkey first.
    expect(await unsafeCall(page, API.registrationStart, CSRF_KEY)).toEqual({ status: 403, code: 'step_up_required' });

    const replacements = collectResponses(page, 'POST', API.recoveryReplace);
    const steppedUp = waitForApi(page, 'POST', API.stepUpFinish);
    await page.getByRole('button', { name: 'Replace recovery codes' }).click();
    expect((await steppedUp).status()).toBe(200);
    const codes = await shownRecoveryCodes(page);
    replacements.stop();
    expect(replacements.responses.map((response) => response.status())).toEqual([403, 200]);
    expect(((await replacements.responses[0]!.json()) as { error: { code: string } }).error.code).toBe(
      'step_up_required',
    );
    expect(codes).toHaveLength(10);
    expect(await page.locator('#me-assurance').textContent()).toMatch(/^step_up/);
    expect((await unsafeCall(page, API.registrationStart, CSRF_KEY)).status).toBe(200);
  });

  it('the owner sees the linked identity; disabling the provider refuses the federated session at once (session_revoked)', async () => {
    // The same employee signs in through the IdP again in another browser: a federated session.
    secondBrowser = await harness.device();
    idp.nextLogin(EMPLOYEE_SUBJECT);
    await signInThroughSso(secondBrowser.page, organizationId, PROVIDER.displayName);
    expect(await secondBrowser.page.locator('#me-assurance').textContent()).toBe('session (federated sign-in)');
    expect(await secondBrowser.page.locator('#first-passkey').isHidden()).toBe(true);
    expect(await meAnswer(secondBrowser.page)).toEqual({ status: 200 });

    const { page } = owner;
    await openOrganization(page, `/identity/organizations/${organizationId}`, ORGANIZATION);
    expect((await providerCells(page, PROVIDER.displayName))[3]).toBe('1');

    const disabled = await toggleProvider(page, organizationId, PROVIDER.providerId, PROVIDER.displayName, 'Disable');
    expect(disabled.at(-1)).toBe(200);
    expect((await providerCells(page, PROVIDER.displayName))[2]).toBe('disabled');
    expect(await meAnswer(secondBrowser.page)).toEqual({ status: 401, code: 'session_revoked' });
    // The first browser's session became a passkey session at its step-up: not ended by the provider.
    expect(await meAnswer(employee.page)).toEqual({ status: 200 });
    await screenshot(page, 'federation-provider-disabled');

    await secondBrowser.page.goto(ssoPagePath(organizationId));
    await expectSuccess(secondBrowser.page, secondBrowser.page.getByText('offers no single sign-on right now'));
  });

  it('enabling the provider again offers it again, but sessions ended by the disable stay ended', async () => {
    const { page } = owner;
    const enabled = await toggleProvider(page, organizationId, PROVIDER.providerId, PROVIDER.displayName, 'Enable');
    expect(enabled.at(-1)).toBe(200);
    expect((await providerCells(page, PROVIDER.displayName))[2]).toBe('enabled');
    expect(await meAnswer(secondBrowser.page)).toEqual({ status: 401, code: 'session_revoked' });
    await secondBrowser.page.goto(ssoPagePath(organizationId));
    await expectSuccess(
      secondBrowser.page,
      secondBrowser.page.getByRole('link', { name: `Sign in with ${PROVIDER.displayName}` }),
    );
  });

  it('a SAML provider from IdP metadata: a new user signs in through the HTTP-POST binding (JIT) and lands as viewer', async () => {
    const { page } = owner;
    await openOrganization(page, `/identity/organizations/${organizationId}`, ORGANIZATION);
    const posts = await submitSamlProvider(page, organizationId, {
      providerId: 'corp-saml',
      displayName: 'Corp SAML',
      metadataXml: saml.idp.metadataXml(),
      signaturePolicy: 'assertion',
      jit: true,
    });
    expect(posts.map((response) => response.status()).at(-1)).toBe(201);
    expect(await posts.at(-1)!.json()).toMatchObject({
      idpEntityId: saml.idp.entityId,
      ssoUrl: saml.idp.ssoUrl,
      signaturePolicy: 'assertion',
      jit: true,
    });
    expect(await page.locator('#sso-details').textContent()).toContain(saml.idp.ssoUrl);

    const newcomer = await harness.device();
    saml.nextLogin('saml-employee-7');
    const callback = await signInThroughSso(newcomer.page, organizationId, 'Corp SAML');
    expect([callback.request().method(), callback.status()]).toEqual(['POST', 303]);
    expect(await sessionStorageItem(newcomer.page, CSRF_KEY)).toMatch(TOKEN_43);
    expect(await documentCookies(newcomer.page)).not.toContain(FEDERATION_CSRF_COOKIE);
    expect(await newcomer.page.locator('#sessions-body tr.current').textContent()).toContain('saml');
    await expectSuccess(newcomer.page, newcomer.page.getByRole('heading', { name: 'Add your first passkey now' }));
    await openOrganizations(newcomer.page);
    expect(await newcomer.page.getByRole('row', { name: new RegExp(ORGANIZATION) }).textContent()).toContain('viewer');

    await openOrganization(page, `/identity/organizations/${organizationId}`, ORGANIZATION);
    expect(await providerCells(page, 'Corp SAML')).toEqual([
      'Corp SAMLcorp-saml',
      'SAML',
      'enabled',
      '1',
      'on (new users join as viewer)',
    ]);
  });

  it('no device saw a page error or a CSP violation', () => {
    expect(harness.problems()).toEqual([]);
  });
});
