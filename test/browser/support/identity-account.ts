import { expect } from '@jest/globals';
import type { Page, Response } from 'playwright-core';
import type { VirtualAuthenticator, VirtualCredential } from './browser.js';
import { accountHeading, API, expectStatus, expectSuccess, pageError, uuidV7, waitForApi } from './identity-pages.js';

/** Checks registration start options against the contract: ES256, EdDSA and RS256 in that order, a discoverable credential, UV required, no attestation. */
export function expectRegistrationOptionsPerContract(publicKey: any): void {
  expect(publicKey.pubKeyCredParams).toEqual([
    { type: 'public-key', alg: -7 },
    { type: 'public-key', alg: -8 },
    { type: 'public-key', alg: -257 },
  ]);
  expect(publicKey.authenticatorSelection).toEqual({
    residentKey: 'required',
    requireResidentKey: true,
    userVerification: 'required',
  });
  expect(publicKey.attestation).toBe('none');
}

/** Checks a replacement set of recovery codes: ten distinct codes, none of them from `previous`. */
export function expectReplacedCodes(codes: readonly string[], previous: readonly string[]): void {
  expect(new Set(codes).size).toBe(10);
  for (const code of codes) expect(previous).not.toContain(code);
}

/**
 * Adds a passkey named `name` from the account view. The authenticator refuses to create a second
 * passkey for an account it already holds one for (excludeCredentials), as a real one would: its
 * first credential is set aside while the new one is created. Returns that credential, the start
 * options' `excludeCredentials` and the finish response.
 */
export async function addPasskeyAsideFirst(
  page: Page,
  authenticator: VirtualAuthenticator,
  name: string,
): Promise<{ setAside: VirtualCredential; excludeCredentials: unknown[]; finish: Response }> {
  const [first] = await authenticator.credentials();
  await authenticator.removeCredential(first!.credentialId);
  await page.getByLabel('Name for a new passkey', { exact: true }).fill(name);
  const started = waitForApi(page, 'POST', API.registrationStart);
  const finished = waitForApi(page, 'POST', API.registrationFinish);
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await expectSuccess(page, page.getByRole('rowheader', { name }));
  const { publicKey } = (await (await started).json()) as { publicKey: { excludeCredentials: unknown[] } };
  return { setAside: first!, excludeCredentials: publicKey.excludeCredentials, finish: await finished };
}

/** Moves the credential `from` holds to `to`, and gives `from` back the one {@link addPasskeyAsideFirst} set aside. */
export async function handOverNewPasskey(
  from: VirtualAuthenticator,
  to: VirtualAuthenticator,
  setAside: VirtualCredential,
): Promise<void> {
  const [created] = await from.credentials();
  await from.removeCredential(created!.credentialId);
  await from.addCredential(setAside);
  await to.addCredential(created!);
}

/** Reloads the account view and revokes the user's other active session, checking there is exactly one. */
export async function revokeOnlyOtherSession(page: Page): Promise<void> {
  await page.reload();
  await expectSuccess(page, accountHeading(page));
  const others = page.locator('#sessions-body tr:not(.current)').filter({ hasText: 'active' });
  expect(await others.count()).toBe(1);
  await others.getByRole('button', { name: /^Revoke session/ }).click();
  await expectStatus(page, 'Session revoked.');
}

/** Signs out every other session of the user from the account view; the page confirms `count` of them. */
export async function signOutOtherSessions(page: Page, count: number): Promise<void> {
  await page.getByRole('button', { name: 'Sign out all other sessions' }).click();
  await expectStatus(page, `Signed out ${count} other session(s).`);
}

/** Renames the passkey `from` to `to` in the account view and waits for its new row. */
export async function renamePasskey(page: Page, from: string, to: string): Promise<void> {
  await page.getByLabel(`New name for passkey ${from}`, { exact: true }).fill(to);
  await page.getByRole('button', { name: `Rename passkey ${from}` }).click();
  await expectSuccess(page, page.getByRole('rowheader', { name: to }));
}

/** Revokes the passkey `name` in the account view and waits for the page to confirm it. */
export async function revokePasskey(page: Page, name: string): Promise<void> {
  await page.getByRole('button', { name: `Revoke passkey ${name}` }).click();
  await expectStatus(page, `Passkey “${name}” revoked.`);
}

/**
 * Checks a step-up refused for want of user verification, once the page shows its error. Chromium
 * either refuses the ceremony itself or sends an assertion without the UV flag, which the server
 * must reject (`finishes`: the step-up finish responses so far): both leave the session's
 * assurance unchanged.
 */
export async function expectStepUpRefused(page: Page, finishes: readonly Response[]): Promise<void> {
  const failure = await pageError(page);
  if (finishes.length > 0) {
    expect(finishes.map((response) => response.status())).toEqual([401]);
    expect(failure.message).toBe('Authentication failed');
    expect(failure.requestId).toMatch(/^[A-Za-z0-9._:-]{1,255}$/);
  } else {
    expect(failure.message).toMatch(/passkey request/);
  }
  expect(await page.locator('#me-assurance').textContent()).toMatch(/^passkey/);
}

/** Checks `GET /identity/v1/client-config` from the page: 200, no-store, and no secret word in it. */
export async function expectClientConfigWithoutSecrets(page: Page): Promise<void> {
  const config = await page.request.get(API.clientConfig);
  expect(config.status()).toBe(200);
  expect(config.headers()['cache-control']).toBe('no-store');
  const text = (await config.text()).toLowerCase();
  for (const word of ['secret', 'pepper', 'password', 'private', 'digest']) expect(text).not.toContain(word);
}

/** `GET /identity/v1/me` from the page (its cookies): the status and the error code, if any. */
export function meAnswer(page: Page): Promise<{ status: number; code?: string }> {
  return page.evaluate(async () => {
    const response = await fetch('/identity/v1/me', { credentials: 'same-origin' });
    return { status: response.status, code: ((await response.json()) as any).error?.code };
  });
}

/** Fills the recovery form of `/identity/recovery` (the passkey name only when given) and submits it. */
export async function submitRecovery(page: Page, code: string, passkeyName?: string): Promise<void> {
  await page.getByLabel('Recovery code', { exact: true }).fill(code);
  if (passkeyName !== undefined) await page.getByLabel('Passkey name', { exact: true }).fill(passkeyName);
  await page.getByRole('button', { name: 'Recover and create a passkey' }).click();
}

/** Tries `code` on `/identity/recovery`: a 401, and the page shows its message and request ID. */
export async function expectRecoveryCodeRejected(page: Page, code: string): Promise<void> {
  await page.goto('/identity/recovery');
  const rejected = waitForApi(page, 'POST', API.recoveryUse);
  await submitRecovery(page, code);
  const answer = await rejected;
  expect(answer.status()).toBe(401);
  const body = (await answer.json()) as { error: { requestId: string } };
  expect(await pageError(page)).toEqual({ message: 'Authentication failed', requestId: body.error.requestId });
}

/**
 * Every POST identity route the demo serves, organization-scoped ones under fresh IDs. Routes 18
 * and 20 answer 404 by contract while administrative recovery is not configured (the demo does not
 * configure it), so they are not listed; device routes arrive with a later issue.
 */
export function identityPostRoutes(): string[] {
  const organization = `/identity/v1/organizations/${uuidV7()}`;
  const serviceIdentity = `${organization}/service-identities/${uuidV7()}`;
  return [
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
}
