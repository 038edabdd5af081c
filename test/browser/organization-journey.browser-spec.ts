import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  expectHardenedPage,
  screenshot,
  sessionStorageItem,
  storedPageState,
  type BrowserDevice,
  expectNoHorizontalOverflow,
  DESKTOP_VIEWPORT,
  PHONE_VIEWPORT,
} from './support/browser.js';
import { BrowserHarness } from './support/harness.js';
import {
  bootstrapOwner,
  CSRF_KEY,
  enrollWithLink,
  expectStatus,
  expectSuccess,
  expectTenDistinctCodes,
  FIRST_OWNER,
  signIn,
  signInButton,
  uuidV7,
} from './support/identity-pages.js';
import {
  downloadAuditExport,
  expectAuditActions,
  expectEveryEventShown,
  expectInvitationAudited,
  loadMoreAudit,
  reloadFirstAuditPage,
  shownEventIds,
} from './support/organization-audit.js';
import { OrganizationJourney } from './support/organization-journey.js';
import {
  acceptInvitationLink,
  changeMemberRole,
  createInvitation,
  createOrganizationWithStepUp,
  deleteOrganizationWithStepUp,
  expectCopied,
  expectEnrolmentLink,
  expectEnrolmentLinkNotKept,
  expectOrganizationNotFound,
  expectSoleOwnerView,
  expectViewerView,
  followOrganizationLink,
  invitationRow,
  inviteThenRevoke,
  openOrganizations,
  renameOrganization,
  outboxEnrolmentLink,
  submitDeletion,
  submitInvitation,
} from './support/organization-pages.js';
import {
  bearerStatus,
  CI_PUBLISHER,
  createServiceIdentityWithStepUp,
  issueCredential,
  revokeCredential,
  revokeServiceIdentity,
  rotateCredential,
  showCredentials,
  type ServiceIdentityCreated,
} from './support/service-identity-pages.js';

/**
 * Issue 5's browser journey in headless Chromium: the owner creates an organization (step-up
 * through the virtual authenticator), invites a member from the organization page; the member
 * enrols in a second browser context with its own authenticator; the owner reads both in the audit
 * log. The tests share one demo and run in order.
 */
describe('organization demo pages in Chromium', () => {
  let harness: BrowserHarness;
  let owner: BrowserDevice;
  let member: BrowserDevice;
  const journey = new OrganizationJourney();

  beforeAll(async () => {
    harness = await BrowserHarness.start(journey.demoEnv());
    owner = await harness.device();
    journey.trackPasskeyChecks(owner.page);
  });

  afterAll(() => harness?.stop());

  it('serves the organization pages with no-store, a strict CSP, nosniff and no-referrer, and no inline script', async () => {
    const { page } = owner;
    for (const path of ['/identity/organizations', `/identity/organizations/${uuidV7()}`]) {
      await expectHardenedPage(page, await page.goto(path));
      await expectSuccess(page, page.getByRole('heading', { name: 'Sign in first' }));
    }
    await screenshot(page, 'organizations-signed-out');
  });

  it('the owner bootstraps and signs in; the account view links to the organizations, listed by ID', async () => {
    const { page } = owner;
    const created = await bootstrapOwner(page, { secret: harness.demo.bootstrapSecret, ...FIRST_OWNER });
    journey.ownerUserId = created.userId;
    journey.firstOrganizationId = created.organizationId;
    await page.getByRole('link', { name: 'Continue to sign in with your passkey' }).click();
    await signIn(page);

    await page.getByRole('link', { name: 'Your organizations' }).click();
    await expectSuccess(page, page.getByRole('heading', { name: 'Your organizations' }));
    const link = page.getByRole('link', { name: 'Analytical Engines' });
    expect(await link.getAttribute('href')).toBe(`/identity/organizations/${created.organizationId}`);
    expect(await page.getByRole('row', { name: /Analytical Engines/ }).textContent()).toContain('owner');
  });

  it('creates an organization: past the recent-passkey window the page confirms with the passkey and retries', async () => {
    const { page } = owner;
    await journey.pastRecentPasskeyWindow(page);

    const { stepUp, creations } = await createOrganizationWithStepUp(page, 'Difference Engines', 'difference-engines');

    expect(creations.map((response) => response.status())).toEqual([403, 201]);
    expect(((await creations[0]!.json()) as { error: { code: string } }).error.code).toBe('step_up_required');
    const organization = (await creations[1]!.json()) as { id: string; slug: string; state: string };
    expect(organization).toMatchObject({ slug: 'difference-engines', state: 'active' });
    journey.organizationId = organization.id;
    // The step-up rotated the session: the retry carried the new session's CSRF token.
    const stepUpSession = (await stepUp.json()) as { assurance: string; csrfToken: string };
    expect(stepUpSession.assurance).toBe('step_up');
    expect(await creations[1]!.request().headerValue('x-csrf-token')).toBe(stepUpSession.csrfToken);
    expect(await sessionStorageItem(page, CSRF_KEY)).toBe(stepUpSession.csrfToken);

    expect(await page.getByRole('row', { name: /Difference Engines/ }).textContent()).toContain('owner');
    await screenshot(page, 'organizations-list');
  });

  it('opens the organization by the ID in its URL and invites a member: the invitation is delivered (development outbox), no link stays on the page', async () => {
    const { page, context } = owner;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: harness.demo.origin });
    await followOrganizationLink(page, 'Difference Engines');
    expect(page.url()).toBe(`${harness.demo.origin}${journey.organizationPage()}`);
    await expectSoleOwnerView(page, journey.organizationId, 'difference-engines');

    const invitations = journey.organizationApi('/invitations');
    await createInvitation(page, invitations, 'grace@example.com', 'viewer');
    expect(await invitationRow(page, 'grace@example.com').textContent()).toContain('pending');
    await screenshot(page, 'organization-invitation-sent');
    await page.setViewportSize(PHONE_VIEWPORT);
    await expectNoHorizontalOverflow(page);
    await screenshot(page, 'organization-invitation-sent-phone');
    await page.setViewportSize(DESKTOP_VIEWPORT);

    // A second invitation for the same email: the error says why, next to the form, focused.
    await submitInvitation(page, 'grace@example.com', 'viewer');
    const feedback = page.locator('#create-invitation + .form-feedback');
    await expectSuccess(page, feedback.locator('#error-message'));
    expect(await feedback.locator('#error-message').textContent()).toBe(
      'An invitation for this email is already pending. Revoke it below to send a new one.',
    );
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.className)).toContain('form-feedback');
    await screenshot(page, 'organization-invitation-duplicate');

    // The outbox holds the message, naming the inviter, the organization and the role.
    const outbox = await harness.device();
    const link = await outboxEnrolmentLink(
      outbox.page,
      harness.demo.origin,
      'grace@example.com',
      `${FIRST_OWNER.displayName} invited you to Difference Engines as viewer`,
    );
    const token = new URLSearchParams(new URL(link).hash.slice(1)).get('token')!;
    expectEnrolmentLink(link, harness.demo.origin, token);
    await screenshot(outbox.page, 'development-outbox');
    await outbox.close();

    // Nothing of the token is on the inviter's page or kept by it.
    await expectEnrolmentLinkNotKept(page, token, 'grace@example.com');
    journey.link = link;
  });

  it('the invitee enrols in a second browser with its own authenticator, saves ten codes, signs in and sees the organization as viewer', async () => {
    member = await harness.device();
    const { page } = member;
    const navigation = page.waitForRequest((request) => new URL(request.url()).pathname === '/identity/enroll');
    const { enrollment, codes } = await enrollWithLink(
      page,
      journey.link,
      'Grace Hopper',
      `${FIRST_OWNER.displayName} invited you to Difference Engines as viewer.`,
    );
    expect((await navigation).url()).toBe(`${harness.demo.origin}/identity/enroll`);
    expect(enrollment).toMatchObject({ organizationId: journey.organizationId, membership: { role: 'viewer' } });
    expectTenDistinctCodes(codes);
    journey.memberUserId = enrollment.userId;
    expect(journey.memberUserId).not.toBe(journey.ownerUserId);

    await page.getByRole('link', { name: 'Continue to sign in with your passkey' }).click();
    const { session } = await signIn(page);
    expect(session.userId).toBe(journey.memberUserId);
    expect(await page.locator('#me-name').textContent()).toBe('Grace Hopper');

    await openOrganizations(page);
    expect(await page.locator('#organizations-body tr').count()).toBe(1);
    expect(await page.getByRole('row', { name: /Difference Engines/ }).textContent()).toContain('viewer');
    await followOrganizationLink(page, 'Difference Engines');
    expect(await page.locator('#members-body tr').count()).toBe(2);
    await expectViewerView(page, journey.auditPath());
    await screenshot(page, 'organization-as-viewer');
  });

  it('the owner reloads the organization: the member joined, and the audit log shows the invitation created and accepted, newest first', async () => {
    const { page } = owner;
    await journey.openOrganization(page, 'Difference Engines');
    // Members are people: the name (the user ID only as its tooltip), not a UUID.
    const graceRow = page.locator('#members-body tr').filter({ hasText: 'Grace Hopper' });
    expect(await graceRow.textContent()).toContain('viewer');
    expect(await graceRow.textContent()).not.toContain(journey.memberUserId);
    expect(await graceRow.locator('.person-name').getAttribute('title')).toBe(journey.memberUserId);
    const adaRow = page.locator('#members-body tr').filter({ hasText: FIRST_OWNER.displayName });
    expect(await adaRow.textContent()).toContain(FIRST_OWNER.email);
    expect(await invitationRow(page, 'grace@example.com').textContent()).toContain('accepted');

    const events = await journey.auditEvents(page);
    expect(await shownEventIds(page)).toEqual(events.map((event) => event.id));
    expectInvitationAudited(events);
    await expectEveryEventShown(page, ['invitation.created', 'invitation.delivered', 'invitation.accepted']);
    // The audit rows name actors and targets the page already read (the event view keeps only IDs).
    const accepted = page.locator('#audit-body tr').filter({ hasText: 'invitation.accepted' }).first();
    expect(await accepted.textContent()).toContain('Grace Hopper');
    expect(await accepted.textContent()).toContain('the invitation for grace@example.com');
    const created = page.locator('#audit-body tr').filter({ hasText: 'invitation.created' }).first();
    expect(await created.textContent()).toContain(`${FIRST_OWNER.displayName} (you)`);
    await screenshot(page, 'organization-audit-log');
    await page.setViewportSize(PHONE_VIEWPORT);
    await expectNoHorizontalOverflow(page);
    await screenshot(page, 'organization-audit-log-phone');
    await page.setViewportSize(DESKTOP_VIEWPORT);
  });

  it('changes the member’s role (ending their sessions), invites and revokes, renames, and pages the audit log with nextCursor', async () => {
    const { page } = owner;
    const graceRow = page.locator('#members-body tr').filter({ hasText: 'Grace Hopper' });
    await changeMemberRole(page, graceRow, 'publisher');
    expect(await graceRow.textContent()).toContain('publisher');
    // The row was drawn anew: its feedback says what happened and holds the focus (not the body).
    const focused = await page.evaluate(() => {
      const active = document.activeElement;
      return { text: active?.textContent ?? '', inGraceRow: active?.closest('tr')?.textContent?.includes('Grace') };
    });
    expect(focused).toEqual({ text: expect.stringContaining('is now publisher'), inGraceRow: true });
    // The sole owner is not offered what the server would refuse.
    const ownRow = page.locator('#members-body tr').filter({ hasText: 'you' });
    expect(await ownRow.getByRole('button').count()).toBe(0);
    expect(await ownRow.textContent()).toContain('The only owner');
    await member.page.goto('/identity');
    await expectSuccess(member.page, signInButton(member.page));

    await inviteThenRevoke(page, 'charles@example.com', 'admin');
    // A settled invitation no longer shows an expiry.
    const charles = page.locator('#invitations-body tr').filter({ hasText: 'charles@example.com' });
    expect(await charles.locator('time').count()).toBe(0);
    await renameOrganization(page, 'Difference Engine No. 2');

    const events = await journey.auditEvents(page);
    expect(events.length).toBeGreaterThan(10);
    const { first, more } = await reloadFirstAuditPage(page, journey.auditPath());
    expect(await shownEventIds(page)).toEqual(events.slice(0, 10).map((event) => event.id));
    await screenshot(page, 'organization-members-audit');

    await loadMoreAudit(page, journey.auditPath(), more, first.nextCursor);
    expect(await shownEventIds(page)).toEqual(events.map((event) => event.id));
    expect(await more.isVisible()).toBe(false);
    expectAuditActions(events, ['membership.changed', 'invitation.revoked', 'organization.changed']);

    const exported = await downloadAuditExport(page);
    expect(exported.filename).toMatch(/^audit-[0-9a-f-]{36}-\d{8}T\d{6}Z\.ndjson$/);
    expect(exported.ids).toEqual(events.map((event) => event.id));
    expect(exported.trailer).toEqual({ cursor: expect.any(String), complete: true });
  });

  it('service identities: create (step-up) with the token shown once and copyable, then issue, rotate and revoke credentials, and revoke the identity', async () => {
    const { page } = owner;
    const identities = journey.organizationApi('/service-identities');
    await journey.pastRecentPasskeyWindow(page);
    const { creations, field } = await createServiceIdentityWithStepUp(page, identities, CI_PUBLISHER);
    expect(creations.map((response) => response.status())).toEqual([403, 201]);
    expect(creations[1]!.request().postDataJSON()).toEqual({
      name: 'CI publisher',
      description: 'Publishes from the main branch',
      capabilities: ['package.publish'],
      lifetimeSeconds: 7 * 86_400,
    });
    const created = (await creations[1]!.json()) as ServiceIdentityCreated;
    expect(await field.inputValue()).toBe(created.token);
    await expectCopied(page, 'Copy the secret token', 'token was copied', created.token);
    const row = page.locator('#services-body').getByRole('row', { name: /CI publisher/ });
    expect(await row.textContent()).toContain('package.publish');
    expect(await row.textContent()).toContain('active');
    await screenshot(page, 'organization-service-token');

    // The token shown is a working bearer credential of this organization (and nothing keeps it).
    const packages = `${harness.demo.origin}/orgs/${journey.organizationId}/packages`;
    expect(await bearerStatus(packages, created.token)).toBe(200);
    expect(await storedPageState(page)).not.toContain(created.token);

    await showCredentials(page, 'CI publisher');
    const credentialRows = page.locator('#credentials-body tr');
    expect(await credentialRows.count()).toBe(1);
    expect(await credentialRows.first().textContent()).toContain(created.credential.publicPrefix);

    // Issue a second credential, rotate the first, revoke the second (each may ask for a passkey).
    const issued = await issueCredential(page, `${identities}/${created.identity.id}/credentials`, 'package.publish');
    await expectStatus(page, 'New credential for “CI publisher” issued');
    expect(await field.inputValue()).toBe(issued.token);
    expect(await credentialRows.count()).toBe(2);

    const first = created.credential.publicPrefix;
    await rotateCredential(page, first);
    const rotatedToken = await field.inputValue();
    expect([created.token, issued.token]).not.toContain(rotatedToken);
    expect(await credentialRows.count()).toBe(3);
    expect(await credentialRows.filter({ hasText: first }).textContent()).toContain('rotated');

    await revokeCredential(page, issued.credential.publicPrefix);
    expect(await credentialRows.filter({ hasText: issued.credential.publicPrefix }).textContent()).toContain('revoked');
    expect(await bearerStatus(packages, issued.token)).toBe(401);
    await screenshot(page, 'organization-service-credentials');

    await revokeServiceIdentity(page, 'CI publisher');
    expect(await row.textContent()).toContain('revoked');
    expect(await page.getByRole('button', { name: /^Rotate credential/ }).count()).toBe(0);
    expect(await bearerStatus(packages, rotatedToken)).toBe(401);
    expectAuditActions(await journey.auditEvents(page), [
      'service_identity.created',
      'service_credential.created',
      'service_credential.rotated',
      'service_credential.revoked',
      'service_identity.revoked',
    ]);
  });

  it('an existing account joins another organization by pasting its invitation link (route 33)', async () => {
    await journey.openOrganization(owner.page, 'Analytical Engines', journey.firstOrganizationId);
    await submitInvitation(owner.page, 'Grace@Example.com');
    await expectStatus(owner.page, 'The invitation was sent to them.');
    const link = await outboxEnrolmentLink(
      member.page,
      harness.demo.origin,
      'Grace@Example.com',
      `${FIRST_OWNER.displayName} invited you to Analytical Engines as viewer`,
    );

    const { page } = member;
    await signIn(page);
    await page.getByRole('link', { name: 'Your organizations' }).click();
    const answer = await acceptInvitationLink(page, link);
    expect(answer.status()).toBe(200);
    const token = new URLSearchParams(new URL(link).hash.slice(1)).get('token');
    expect(answer.request().postDataJSON()).toEqual({ token });
    await expectStatus(page, 'you joined as viewer');
    expect(await page.getByRole('row', { name: /Analytical Engines/ }).textContent()).toContain('viewer');
    expect(await page.locator('#organizations-body tr').count()).toBe(2);
    await screenshot(page, 'organizations-invitation-accepted');
  });

  it('deletes an organization only with its slug typed and a fresh passkey check; it leaves the list', async () => {
    const { page } = owner;
    await journey.openOrganization(page, 'Analytical Engines', journey.firstOrganizationId);
    await submitDeletion(page, 'analytical');
    await expectStatus(page, 'Nothing deleted');

    await journey.pastRecentPasskeyWindow(page);
    const deletions = await deleteOrganizationWithStepUp(page, 'analytical-engines', 'Analytical Engines');
    expect(deletions).toEqual([403, 200]);

    await openOrganizations(page);
    expect(await page.locator('#organizations-body tr').count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Analytical Engines' }).count()).toBe(0);
    await member.page.reload();
    await expectSuccess(member.page, member.page.getByRole('heading', { name: 'Your organizations' }));
    expect(await member.page.getByRole('link', { name: 'Analytical Engines' }).count()).toBe(0);
  });

  it('an unknown or deleted organization shows the envelope’s message and request ID', async () => {
    const { page } = owner;
    for (const [name, organizationId] of [
      ['unknown', uuidV7()],
      ['deleted', journey.firstOrganizationId],
    ])
      await expectOrganizationNotFound(page, name, organizationId);
    await screenshot(page, 'organization-not-found');
  });

  it('no page threw and no Content-Security-Policy violation happened on any device', () => {
    expect(harness.problems()).toEqual([]);
  });
});
