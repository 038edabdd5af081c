import { expect } from '@jest/globals';
import type { Locator, Page, Response } from 'playwright-core';
import { accountHeading, API, collectResponses, expectStatus, expectSuccess, waitForApi } from './identity-pages.js';
import { ORGANIZATIONS } from './organization-pages.js';

/** The cookie a federated sign-in hands the CSRF token over in (identity-http §6). */
export const FEDERATION_CSRF_COOKIE = '__Host-tessera_csrf';

/** The OIDC provider form of the "Single sign-on" panel. */
export interface OidcProviderForm {
  providerId: string;
  displayName: string;
  issuer: string;
  clientId: string;
  clientSecret?: string;
  jit: boolean;
}

/** The SAML provider form of the panel: the IdP by its metadata XML, or by its three fields. */
export type SamlProviderForm = {
  providerId: string;
  displayName: string;
  signaturePolicy: string;
  jit: boolean;
} & ({ metadataXml: string } | { idpEntityId: string; ssoUrl: string; certificatesPem: string });

/** Identity API path of an organization's providers (management routes). */
export function providersPath(organizationId: string): string {
  return `${ORGANIZATIONS}/${organizationId}/federation/providers`;
}

/** The organization's own sign-in page. */
export function ssoPagePath(organizationId: string): string {
  return `/identity/organizations/${organizationId}/sso`;
}

/** The row of the provider `displayName` in the panel's table. */
export function providerRow(page: Page, displayName: string): Locator {
  return page.locator('#sso-body tr').filter({ hasText: displayName });
}

/** The texts of a provider row's cells: name (with ID), protocol, state, linked identities, JIT. */
export async function providerCells(page: Page, displayName: string): Promise<string[]> {
  const row = providerRow(page, displayName);
  await row.waitFor();
  return (await row.locator('th, td').allTextContents()).slice(0, 5).map((text) => text.trim());
}

/**
 * Fills and submits the OIDC form; returns every POST to the providers path (a 403
 * `step_up_required`, then the retry, when the page had to confirm with the passkey).
 */
export async function submitOidcProvider(page: Page, organizationId: string, form: OidcProviderForm) {
  const oidc = page.locator('#add-oidc-provider');
  await oidc.getByLabel('Provider ID', { exact: true }).fill(form.providerId);
  await oidc.getByLabel('Display name', { exact: true }).fill(form.displayName);
  await oidc.getByLabel('Issuer URL', { exact: true }).fill(form.issuer);
  await oidc.getByLabel('Client ID', { exact: true }).fill(form.clientId);
  await oidc.getByLabel('Client secret (optional)', { exact: true }).fill(form.clientSecret ?? '');
  await oidc.getByLabel('Create accounts on first sign-in (just-in-time)').setChecked(form.jit);
  return submitAndCollect(page, organizationId, oidc, oidc.getByRole('button', { name: 'Add OIDC provider' }));
}

/** Fills and submits the SAML form; returns every POST to the providers path. */
export async function submitSamlProvider(page: Page, organizationId: string, form: SamlProviderForm) {
  const saml = page.locator('#add-saml-provider');
  await saml.getByLabel('Provider ID', { exact: true }).fill(form.providerId);
  await saml.getByLabel('Display name', { exact: true }).fill(form.displayName);
  if ('metadataXml' in form) {
    await saml.getByLabel('Identity provider metadata XML', { exact: true }).fill(form.metadataXml);
  } else {
    await saml.getByLabel('Identity provider entity ID', { exact: true }).fill(form.idpEntityId);
    await saml.getByLabel('Single sign-on URL (HTTP-Redirect)', { exact: true }).fill(form.ssoUrl);
    await saml.getByLabel('Signing certificates (PEM)', { exact: true }).fill(form.certificatesPem);
  }
  await saml.getByLabel('Signatures required', { exact: true }).selectOption(form.signaturePolicy);
  await saml.getByLabel('Create accounts on first sign-in (just-in-time)').setChecked(form.jit);
  return submitAndCollect(page, organizationId, saml, saml.getByRole('button', { name: 'Add SAML provider' }));
}

/**
 * Clicks `submit` of `form` and collects the provider POSTs until the page's action is over (the
 * form is no longer `aria-busy`), whatever its outcome.
 */
async function submitAndCollect(page: Page, organizationId: string, form: Locator, submit: Locator) {
  const posts = collectResponses(page, 'POST', providersPath(organizationId));
  // The submit handler marks the form busy while it dispatches the click; the action ends by unmarking it.
  await submit.click();
  await form.and(page.locator(':not([aria-busy])')).waitFor();
  posts.stop();
  return posts.responses;
}

/** The value of a copy field of the connection details (`label`: "Redirect URI", "ACS URL", …). */
export function detailsField(page: Page, label: string): Locator {
  return page.locator('#sso-details').getByLabel(label, { exact: true });
}

/**
 * Clicks the provider's enable/disable button (`action` "Disable" or "Enable"), confirming with the
 * passkey if asked; returns the statuses of the POSTs to its `disable`/`enable` route.
 */
export async function toggleProvider(
  page: Page,
  organizationId: string,
  providerId: string,
  displayName: string,
  action: 'Disable' | 'Enable',
): Promise<number[]> {
  const path = `${providersPath(organizationId)}/${providerId}/${action.toLowerCase()}`;
  const answers = collectResponses(page, 'POST', path);
  await page.getByRole('button', { name: `${action} provider ${displayName}` }).click();
  await expectStatus(page, `Provider “${displayName}” ${action.toLowerCase()}d`);
  answers.stop();
  return answers.responses.map((response) => response.status());
}

/**
 * Signs in through the organization's sign-in page: opens it, follows “Sign in with
 * `displayName`” (a top-level navigation to the IdP, which logs the queued subject in and
 * redirects to the callback), and waits for the account page it lands on. Returns the callback's
 * answer (a 303 with the cookies).
 */
export async function signInThroughSso(page: Page, organizationId: string, displayName: string): Promise<Response> {
  await page.goto(ssoPagePath(organizationId));
  const link = page.getByRole('link', { name: `Sign in with ${displayName}` });
  await expectSuccess(page, link);
  const callback = page.waitForResponse((response) => new URL(response.url()).pathname.endsWith('/callback'));
  await link.click();
  const answer = await callback;
  await page.waitForURL((url) => url.pathname === '/identity');
  await expectSuccess(page, accountHeading(page));
  return answer;
}

/** The cookies `document.cookie` shows the page (non-HttpOnly ones only). */
export function documentCookies(page: Page): Promise<string> {
  return page.evaluate(() => (globalThis as any).document.cookie as string);
}

/** An unsafe identity call from the page with its stored CSRF token: status and error code. */
export function unsafeCall(page: Page, path: string, csrfKey: string): Promise<{ status: number; code?: string }> {
  return page.evaluate(
    async ({ path, csrfKey }) => {
      const token = (globalThis as any).sessionStorage.getItem(csrfKey) as string;
      const response = await fetch(path, { method: 'POST', headers: { 'x-csrf-token': token } });
      const body = (await response.json().catch(() => ({}))) as { error?: { code?: string } };
      return { status: response.status, code: body.error?.code };
    },
    { path, csrfKey },
  );
}

/** Adds the first passkey from the account page (FED1): registration start and finish must both be 200. */
export async function addFirstPasskey(page: Page, name: string): Promise<void> {
  await page.getByLabel('Name for a new passkey', { exact: true }).fill(name);
  const started = waitForApi(page, 'POST', API.registrationStart);
  const finished = waitForApi(page, 'POST', API.registrationFinish);
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  expect((await started).status()).toBe(200);
  expect((await finished).status()).toBe(200);
  await expectStatus(page, `Passkey “${name}” added.`);
}
