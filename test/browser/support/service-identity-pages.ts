import { expect } from '@jest/globals';
import type { Locator, Page, Response } from 'playwright-core';
import { API, collectResponses, expectStatus, expectSuccess, waitForApi } from './identity-pages.js';

/** The form of a new service identity. */
export interface ServiceIdentityForm {
  name: string;
  description: string;
  capabilities: string;
  lifetimeDays: string;
}

/** The service identity the organization journey creates: a CI publisher, its first credential valid for 7 days. */
export const CI_PUBLISHER: ServiceIdentityForm = {
  name: 'CI publisher',
  description: 'Publishes from the main branch',
  capabilities: 'package.publish',
  lifetimeDays: '7',
};

/**
 * Creates a service identity from the organization page, confirming with the passkey; returns every
 * POST to `identitiesPath` and the secret-token field once it shows.
 */
export async function createServiceIdentityWithStepUp(
  page: Page,
  identitiesPath: string,
  form: ServiceIdentityForm,
): Promise<{ creations: Response[]; field: Locator }> {
  const creations = collectResponses(page, 'POST', identitiesPath);
  await page.getByLabel('Name', { exact: true }).fill(form.name);
  await page.getByLabel('Description (optional)', { exact: true }).fill(form.description);
  await page.getByLabel('Capabilities', { exact: true }).fill(form.capabilities);
  await page.getByLabel('First credential’s lifetime in days (optional)', { exact: true }).fill(form.lifetimeDays);
  const steppedUp = waitForApi(page, 'POST', API.stepUpFinish);
  await page.getByRole('button', { name: 'Create service identity' }).click();
  expect((await steppedUp).status()).toBe(200);
  const field = page.getByLabel('Secret token', { exact: true });
  await expectSuccess(page, field);
  creations.stop();
  return { creations: creations.responses, field };
}

/** Issues a credential of the shown service identity; returns the `201` body. */
export async function issueCredential(
  page: Page,
  credentialsPath: string,
  capabilities: string,
): Promise<{ credential: { publicPrefix: string }; token: string }> {
  await page.getByLabel('Capabilities of a new credential', { exact: true }).fill(capabilities);
  const issuedAnswer = page.waitForResponse(
    (response) =>
      response.request().method() === 'POST' &&
      new URL(response.url()).pathname === credentialsPath &&
      response.status() === 201,
  );
  await page.getByRole('button', { name: 'Issue a credential' }).click();
  return (await (await issuedAnswer).json()) as { credential: { publicPrefix: string }; token: string };
}

/** The `201` body of a service identity's creation. */
export interface ServiceIdentityCreated {
  identity: { id: string };
  credential: { id: string; publicPrefix: string };
  token: string;
}

/** Opens the credentials panel of the service identity `name`. */
export async function showCredentials(page: Page, name: string): Promise<void> {
  await page.getByRole('button', { name: `Show the credentials of ${name}` }).click();
  await expectSuccess(page, page.getByRole('heading', { name: `Credentials of ${name}` }));
}

/** Rotates the credential with the public prefix `prefix` and waits for the page to confirm it. */
export async function rotateCredential(page: Page, prefix: string): Promise<void> {
  await page.getByRole('button', { name: `Rotate credential ${prefix}` }).click();
  await expectStatus(page, `Rotated credential ${prefix}`);
}

/** Revokes the credential with the public prefix `prefix` and waits for the page to confirm it. */
export async function revokeCredential(page: Page, prefix: string): Promise<void> {
  await page.getByRole('button', { name: `Revoke credential ${prefix}` }).click();
  await expectStatus(page, 'its token stopped working');
}

/** Revokes the service identity `name` and waits for the page to confirm it. */
export async function revokeServiceIdentity(page: Page, name: string): Promise<void> {
  await page.getByRole('button', { name: `Revoke service identity ${name}` }).click();
  await expectStatus(page, 'and all its credentials were revoked');
}

/** The status of `GET url` with `token` as the bearer credential. */
export async function bearerStatus(url: string, token: string): Promise<number> {
  return (await fetch(url, { headers: { authorization: `Bearer ${token}` } })).status;
}
