import { expect } from '@jest/globals';
import type { Locator, Page, Response } from 'playwright-core';
import { API, expectSuccess, waitForApi } from './identity-pages.js';

/** Identity API path of the organizations collection. */
export const ORGANIZATIONS = '/identity/v1/organizations';

/** One audit event as route 29 lists it. */
export interface AuditEvent {
  id: string;
  action: string;
  occurredAt: string;
}

/** The organization's whole audit stream from route 29 (one page of 100), newest first. */
export async function auditEvents(page: Page, auditPath: string): Promise<AuditEvent[]> {
  const response = await page.request.get(`${auditPath}?limit=100`);
  expect(response.status()).toBe(200);
  const body = (await response.json()) as { events: AuditEvent[]; nextCursor?: string };
  expect(body.nextCursor).toBeUndefined();
  return body.events;
}

/** Event IDs of the audit table's rows, top to bottom. */
export function shownEventIds(page: Page): Promise<string[]> {
  return page
    .locator('#audit-body tr')
    .evaluateAll((rows) => rows.map((row) => (row as any).dataset.eventId as string));
}

/** Records the `authenticatedAt` of every passkey sign-in or step-up the page completes. */
export function onPasskeyCheck(page: Page, record: (authenticatedAt: number) => void): void {
  page.on('response', (response) => {
    const path = new URL(response.url()).pathname;
    if (response.status() !== 200 || (path !== API.authenticationFinish && path !== API.stepUpFinish)) return;
    void response.json().then(
      (session: { authenticatedAt: string }) => record(Date.parse(session.authenticatedAt)),
      () => undefined,
    );
  });
}

/** Waits until a passkey check at `passkeyAt` is no longer recent, so the next sensitive call needs one. */
export async function pastRecentPasskeyWindow(page: Page, passkeyAt: number, windowSeconds: number): Promise<void> {
  const windowEnds = passkeyAt + windowSeconds * 1000 + 500;
  await page.waitForTimeout(Math.max(0, windowEnds - Date.now()));
}

/** Opens an organization page and waits for its `name` heading. */
export async function openOrganization(page: Page, path: string, name: string): Promise<void> {
  await page.goto(path);
  await expectSuccess(page, page.getByRole('heading', { name, level: 2 }));
}

/** Collects the page's responses to `method path` until `stop()`. */
export function collectResponses(page: Page, method: string, path: string): { responses: Response[]; stop(): void } {
  const responses: Response[] = [];
  const collect = (response: Response) => {
    if (response.request().method() === method && new URL(response.url()).pathname === path) responses.push(response);
  };
  page.on('response', collect);
  return { responses, stop: () => page.off('response', collect) };
}

/**
 * Creates an organization from the organizations page, confirming with the passkey when asked;
 * returns the step-up finish response and every POST to the organizations collection.
 */
export async function createOrganizationWithStepUp(
  page: Page,
  name: string,
  slug: string,
): Promise<{ stepUp: Response; creations: Response[] }> {
  const creations = collectResponses(page, 'POST', ORGANIZATIONS);
  await page.getByLabel('Organization name', { exact: true }).fill(name);
  await page.getByLabel('Organization slug', { exact: true }).fill(slug);
  const steppedUp = waitForApi(page, 'POST', API.stepUpFinish);
  await page.getByRole('button', { name: 'Create organization' }).click();
  const stepUp = await steppedUp;
  expect(stepUp.status()).toBe(200);
  await expectSuccess(page, page.getByRole('status').filter({ hasText: `Organization “${name}” created` }));
  creations.stop();
  return { stepUp, creations: creations.responses };
}

/** Fills the invitation form of an organization page (the role only when given) and submits it. */
export async function submitInvitation(page: Page, email: string, role?: string): Promise<void> {
  await page.getByLabel('Email of the person to invite', { exact: true }).fill(email);
  if (role !== undefined) await page.getByLabel('Role', { exact: true }).selectOption(role);
  await page.getByRole('button', { name: 'Create invitation' }).click();
}

/** Invites `email` as `role` through the page; returns the token of the pending invitation created. */
export async function createInvitation(page: Page, invitationsPath: string, email: string, role: string) {
  const invited = waitForApi(page, 'POST', invitationsPath);
  await submitInvitation(page, email, role);
  const response = await invited;
  expect(response.status()).toBe(201);
  const { invitation, token } = (await response.json()) as { invitation: { state: string }; token: string };
  expect(invitation.state).toBe('pending');
  return { token };
}

/** Changes the role of the member in `row` and waits for the page to confirm it. */
export async function changeMemberRole(page: Page, row: Locator, role: string): Promise<void> {
  await row.getByRole('combobox').selectOption(role);
  const patched = page.waitForResponse(
    (response) => response.request().method() === 'PATCH' && response.url().includes('/memberships/'),
  );
  await row.getByRole('button', { name: /^Change the role of member/ }).click();
  expect((await patched).status()).toBe(200);
  await expectSuccess(page, page.getByRole('status').filter({ hasText: `is now ${role}` }));
}

/** The form of a new service identity. */
export interface ServiceIdentityForm {
  name: string;
  description: string;
  capabilities: string;
  lifetimeDays: string;
}

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

/** What the page's clipboard holds. */
export function clipboardText(page: Page): Promise<string> {
  return page.evaluate(() => (globalThis as any).navigator.clipboard.readText() as Promise<string>);
}

/** Pastes an invitation link into the organizations page and accepts it; returns route 33's answer. */
export async function acceptInvitationLink(page: Page, link: string): Promise<Response> {
  await page.getByLabel('Invitation link', { exact: true }).fill(link);
  const accepted = waitForApi(page, 'POST', '/identity/v1/invitations/accept');
  await page.getByRole('button', { name: 'Accept invitation' }).click();
  return accepted;
}

/**
 * Types `slug` into the delete confirmation and deletes the organization named `name`, confirming
 * with the passkey when asked; returns the statuses of every DELETE under the organizations path.
 */
export async function deleteOrganizationWithStepUp(
  page: Page,
  confirmation: Locator,
  slug: string,
  name: string,
): Promise<number[]> {
  const deletions: number[] = [];
  page.on('response', (response) => {
    if (response.request().method() === 'DELETE' && new URL(response.url()).pathname.startsWith(ORGANIZATIONS))
      deletions.push(response.status());
  });
  await confirmation.fill(slug);
  const steppedUp = waitForApi(page, 'POST', API.stepUpFinish);
  await page.getByRole('button', { name: 'Delete organization' }).click();
  expect((await steppedUp).status()).toBe(200);
  await expectSuccess(page, page.getByRole('status').filter({ hasText: `Organization “${name}” deleted` }));
  return deletions;
}
