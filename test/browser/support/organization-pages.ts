import { expect } from '@jest/globals';
import type { Locator, Page, Response } from 'playwright-core';
import { storedPageState } from './browser.js';
import { API, collectResponses, expectStatus, expectSuccess, pageError, waitForApi } from './identity-pages.js';

/** Identity API path of the organizations collection. */
export const ORGANIZATIONS = '/identity/v1/organizations';

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
  await expectSuccess(page, organizationHeading(page, name));
}

/** The `name` heading of an organization page. */
export function organizationHeading(page: Page, name: string): Locator {
  return page.getByRole('heading', { name, level: 2 });
}

/** Follows the link to the organization `name` and waits for its page. */
export async function followOrganizationLink(page: Page, name: string): Promise<void> {
  await page.getByRole('link', { name }).click();
  await expectSuccess(page, organizationHeading(page, name));
}

/** Opens the organizations page and waits for its heading. */
export async function openOrganizations(page: Page): Promise<void> {
  await page.goto('/identity/organizations');
  await expectSuccess(page, page.getByRole('heading', { name: 'Your organizations' }));
}

/** Checks a new organization's page: its ID and slug, the signed-in user its owner and its only member. */
export async function expectSoleOwnerView(page: Page, id: string, slug: string): Promise<void> {
  expect(await page.locator('#organization-id').textContent()).toBe(id);
  expect(await page.locator('#organization-slug').textContent()).toBe(slug);
  expect(await page.locator('#organization-role').textContent()).toBe('owner');
  expect(await page.locator('#members-body tr').count()).toBe(1);
  expect(await page.locator('#members-body tr').textContent()).toContain('you');
}

/** Renames the shown organization and waits for its new heading. */
export async function renameOrganization(page: Page, name: string): Promise<void> {
  await page.getByLabel('Organization name', { exact: true }).fill(name);
  await page.getByRole('button', { name: 'Rename' }).click();
  await expectSuccess(page, organizationHeading(page, name));
}

/**
 * What a viewer sees of an organization page: no management controls (for owners and admins; the
 * server refuses a viewer regardless), and the audit log at `auditPath` answers 404.
 */
export async function expectViewerView(page: Page, auditPath: string): Promise<void> {
  for (const heading of ['Audit log', 'Service identities', 'Settings'])
    expect(await page.getByRole('heading', { name: heading }).isVisible()).toBe(false);
  expect(await page.getByRole('button', { name: 'Create invitation' }).isVisible()).toBe(false);
  const audit = await page.request.get(auditPath);
  expect(audit.status()).toBe(404);
  expect(((await audit.json()) as { error: { code: string } }).error.code).toBe('not_found');
}

/**
 * Opens the page of `organizationId`, which does not exist for the user: a 404 (`name` in a
 * failure), and the page shows the envelope's message and request ID.
 */
export async function expectOrganizationNotFound(page: Page, name: string, organizationId: string): Promise<void> {
  const answered = waitForApi(page, 'GET', `${ORGANIZATIONS}/${organizationId}`);
  await page.goto(`/identity/organizations/${organizationId}`);
  const response = await answered;
  expect([name, response.status()]).toEqual([name, 404]);
  const body = (await response.json()) as { error: { code: string; requestId: string } };
  expect(body.error.code).toBe('not_found');
  expect(await pageError(page)).toEqual({
    message: 'The requested identity resource was not found',
    requestId: body.error.requestId,
  });
  await expectSuccess(page, page.getByText('This organization does not exist'));
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
  await expectStatus(page, `Organization “${name}” created`);
  creations.stop();
  return { stepUp, creations: creations.responses };
}

/** Fills the invitation form of an organization page (the role only when given) and submits it. */
export async function submitInvitation(page: Page, email: string, role?: string): Promise<void> {
  await page.getByLabel('Email of the person to invite', { exact: true }).fill(email);
  if (role !== undefined) await page.getByLabel('Role', { exact: true }).selectOption(role);
  await page.getByRole('button', { name: 'Create invitation' }).click();
}

/** The row of the invitation for `email` in the organization page's invitations. */
export function invitationRow(page: Page, email: string): Locator {
  // Scoped to the invitations table: audit rows name invitations by their email too.
  return page
    .locator('#invitations-body')
    .getByRole('row', { name: new RegExp(email.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) });
}

/**
 * The enrolment link of the newest invitation for `email`, as the development outbox
 * (`/identity/dev/outbox`) shows it: the demo delivers invitations there instead of answering the
 * token. Checks the message names who invited whom where (`subject`).
 */
export async function outboxEnrolmentLink(page: Page, origin: string, email: string, subject: string): Promise<string> {
  await page.goto(`${origin}/identity/dev/outbox`);
  const message = page.locator('li.outbox-message').filter({ hasText: email }).first();
  await expectSuccess(page, message);
  expect(await message.locator('h3').textContent()).toBe(subject);
  const link = await message.getByRole('link', { name: 'Accept the invitation' }).getAttribute('href');
  expect(link).not.toBeNull();
  return link!;
}

/** Checks an enrolment link: `origin/identity/enroll`, no query, and `token` only in its fragment. */
export function expectEnrolmentLink(link: string, origin: string, token: string): void {
  expect(link).toBe(`${origin}/identity/enroll#token=${token}`);
  expect(new URL(link).search).toBe('');
  expect(new URLSearchParams(new URL(link).hash.slice(1)).get('token')).toBe(token);
}

/**
 * Checks a delivered invitation left nothing of its token on the inviter's page: no shown-once
 * block, nothing stored, and after a reload the invitation for `email` shows without a link.
 */
export async function expectEnrolmentLinkNotKept(page: Page, token: string, email: string): Promise<void> {
  expect(await page.locator('#invitation-secret').isHidden()).toBe(true);
  const stored = await storedPageState(page);
  expect(stored).not.toContain(token);
  await page.reload();
  await expectSuccess(page, invitationRow(page, email));
  expect(await page.locator('#invitation-secret').isHidden()).toBe(true);
  expect(await page.content()).not.toContain(token);
}

/** Invites `email` as `role`, then revokes the invitation: the page says so, and shows no link. */
export async function inviteThenRevoke(page: Page, email: string, role: string): Promise<void> {
  await submitInvitation(page, email, role);
  await expectSuccess(page, invitationRow(page, email));
  await page.getByRole('button', { name: `Revoke the invitation for ${email}` }).click();
  await expectStatus(page, 'no longer works');
  expect(await invitationRow(page, email).textContent()).toContain('revoked');
  expect(await page.locator('#invitation-secret').isHidden()).toBe(true);
}

/**
 * Invites `email` as `role` through the page: the demo delivers the invitation (to its development
 * outbox), so the answer carries no token and the page says so next to the form.
 */
export async function createInvitation(page: Page, invitationsPath: string, email: string, role: string) {
  const invited = waitForApi(page, 'POST', invitationsPath);
  await submitInvitation(page, email, role);
  const response = await invited;
  expect(response.status()).toBe(201);
  const body = (await response.json()) as { invitation: { id: string; state: string }; delivered?: boolean };
  expect(body).not.toHaveProperty('token');
  expect(body.delivered).toBe(true);
  expect(body.invitation.state).toBe('pending');
  await expectStatus(page, `Invited ${email} as ${role}. The invitation was sent to them.`);
  const feedback = page.locator('#create-invitation + .form-feedback');
  expect(await feedback.textContent()).toContain(`Invited ${email} as ${role}.`);
  return { invitationId: body.invitation.id };
}

/** Changes the role of the member in `row` and waits for the page to confirm it. */
export async function changeMemberRole(page: Page, row: Locator, role: string): Promise<void> {
  await row.getByRole('combobox').selectOption(role);
  const patched = page.waitForResponse(
    (response) => response.request().method() === 'PATCH' && response.url().includes('/memberships/'),
  );
  await row.getByRole('button', { name: /^Change the role of / }).click();
  expect((await patched).status()).toBe(200);
  await expectStatus(page, `is now ${role}`);
}

/** What the page's clipboard holds. */
export function clipboardText(page: Page): Promise<string> {
  return page.evaluate(() => (globalThis as any).navigator.clipboard.readText() as Promise<string>);
}

/** Clicks the copy button `button`, waits for the status saying `copied`, and checks the clipboard holds `text`. */
export async function expectCopied(page: Page, button: string, copied: string, text: string): Promise<void> {
  await page.getByRole('button', { name: button }).click();
  await expectStatus(page, copied);
  expect(await clipboardText(page)).toBe(text);
}

/** Pastes an invitation link into the organizations page and accepts it; returns route 33's answer. */
export async function acceptInvitationLink(page: Page, link: string): Promise<Response> {
  await page.getByLabel('Invitation link', { exact: true }).fill(link);
  const accepted = waitForApi(page, 'POST', '/identity/v1/invitations/accept');
  await page.getByRole('button', { name: 'Accept invitation' }).click();
  return accepted;
}

/** Types `slug` into the delete confirmation of an organization page and clicks `Delete organization`. */
export async function submitDeletion(page: Page, slug: string): Promise<void> {
  await page.getByLabel('To delete this organization, type its slug', { exact: true }).fill(slug);
  await page.getByRole('button', { name: 'Delete organization' }).click();
}

/**
 * Types `slug` into the delete confirmation and deletes the organization named `name`, confirming
 * with the passkey when asked; returns the statuses of every DELETE under the organizations path.
 */
export async function deleteOrganizationWithStepUp(page: Page, slug: string, name: string): Promise<number[]> {
  const deletions: number[] = [];
  page.on('response', (response) => {
    if (response.request().method() === 'DELETE' && new URL(response.url()).pathname.startsWith(ORGANIZATIONS))
      deletions.push(response.status());
  });
  const steppedUp = waitForApi(page, 'POST', API.stepUpFinish);
  await submitDeletion(page, slug);
  expect((await steppedUp).status()).toBe(200);
  await expectStatus(page, `Organization “${name}” deleted`);
  return deletions;
}
