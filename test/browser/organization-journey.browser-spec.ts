import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
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
  bootstrapOwner,
  CSRF_KEY,
  enrollWithLink,
  expectSuccess,
  pageError,
  signIn,
  signInButton,
  uuidV7,
  waitForApi,
} from './support/identity-pages.js';
import {
  acceptInvitationLink,
  auditEvents as auditEventsAt,
  changeMemberRole,
  clipboardText,
  createInvitation,
  createOrganizationWithStepUp,
  createServiceIdentityWithStepUp,
  deleteOrganizationWithStepUp,
  issueCredential,
  onPasskeyCheck,
  openOrganization as openOrganizationAt,
  ORGANIZATIONS,
  pastRecentPasskeyWindow as pastRecentPasskeyWindowOf,
  shownEventIds,
  submitInvitation,
  type AuditEvent,
} from './support/organization-pages.js';

/** This demo's recent-passkey window: short, so the journey reaches step-up without a 5-minute wait. */
const STEP_UP_WINDOW_SECONDS = 3;

/**
 * Issue 5's browser journey in headless Chromium: the owner creates an organization (step-up
 * through the virtual authenticator), invites a member from the organization page; the member
 * enrols in a second browser context with its own authenticator; the owner reads both in the audit
 * log. The tests share one demo and run in order.
 */
describe('organization demo pages in Chromium', () => {
  let demo: DemoServer;
  let browser: Browser;
  const devices: BrowserDevice[] = [];
  let owner: BrowserDevice;
  let member: BrowserDevice;
  const journey = {
    ownerUserId: '',
    firstOrganizationId: '',
    /** `authenticatedAt` of the owner's last passkey check: "recent" for the window after it. */
    passkeyAt: 0,
    organizationId: '',
    link: '',
    memberUserId: '',
  };

  async function device(): Promise<BrowserDevice> {
    const opened = await openDevice(browser, demo.origin);
    devices.push(opened);
    return opened;
  }

  const organizationPage = () => `/identity/organizations/${journey.organizationId}`;
  const organizationApi = (path = '') => `${ORGANIZATIONS}/${journey.organizationId}${path}`;

  const auditEvents = (page: Page): Promise<AuditEvent[]> => auditEventsAt(page, organizationApi('/audit-events'));
  /** Waits until the owner's last passkey check is no longer recent, so the next sensitive call needs one. */
  const pastRecentPasskeyWindow = (page: Page) =>
    pastRecentPasskeyWindowOf(page, journey.passkeyAt, STEP_UP_WINDOW_SECONDS);
  const openOrganization = (page: Page, name: string) => openOrganizationAt(page, organizationPage(), name);

  beforeAll(async () => {
    demo = await DemoServer.start({ TESSERA_STEP_UP_WINDOW_SECONDS: String(STEP_UP_WINDOW_SECONDS) });
    browser = await launchChromium();
    owner = await device();
    // Every passkey sign-in or step-up of the owner starts a new recent-passkey window.
    onPasskeyCheck(owner.page, (authenticatedAt) => (journey.passkeyAt = authenticatedAt));
  });

  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
  });

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
    const created = await bootstrapOwner(page, {
      secret: demo.bootstrapSecret,
      displayName: 'Ada Lovelace',
      email: 'ada@example.com',
      organizationName: 'Analytical Engines',
      organizationSlug: 'analytical-engines',
      passkeyName: 'Ada’s laptop',
    });
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
    await pastRecentPasskeyWindow(page);

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

    const row = page.getByRole('row', { name: /Difference Engines/ });
    expect(await row.textContent()).toContain('owner');
    await screenshot(page, 'organizations-list');
  });

  it('opens the organization by the ID in its URL and invites a member: the link carries the token only in its fragment, shown once', async () => {
    const { page, context } = owner;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: demo.origin });
    await page.getByRole('link', { name: 'Difference Engines' }).click();
    await expectSuccess(page, page.getByRole('heading', { name: 'Difference Engines', level: 2 }));
    expect(page.url()).toBe(`${demo.origin}${organizationPage()}`);
    expect(await page.locator('#organization-id').textContent()).toBe(journey.organizationId);
    expect(await page.locator('#organization-slug').textContent()).toBe('difference-engines');
    expect(await page.locator('#organization-role').textContent()).toBe('owner');
    expect(await page.locator('#members-body tr').count()).toBe(1);
    expect(await page.locator('#members-body tr').textContent()).toContain('you');

    const { token } = await createInvitation(page, organizationApi('/invitations'), 'grace@example.com', 'viewer');

    const field = page.getByLabel('Enrolment link', { exact: true });
    await expectSuccess(page, field);
    const link = await field.inputValue();
    expect(link).toBe(`${demo.origin}/identity/enroll#token=${token}`);
    expect(new URL(link).search).toBe('');
    expect(new URLSearchParams(new URL(link).hash.slice(1)).get('token')).toBe(token);
    await page.getByRole('button', { name: 'Copy the enrolment link' }).click();
    await expectSuccess(page, page.getByRole('status').filter({ hasText: 'copied to the clipboard' }));
    expect(await clipboardText(page)).toBe(link);
    expect(await page.getByRole('row', { name: /grace@example\.com/ }).textContent()).toContain('pending');
    await screenshot(page, 'organization-invitation-link');

    // Shown once: the page keeps nothing of it, and a reload shows the invitation without its link.
    const stored = await storedPageState(page);
    expect(stored).not.toContain(token);
    await page.reload();
    await expectSuccess(page, page.getByRole('row', { name: /grace@example\.com/ }));
    expect(await page.locator('#invitation-secret').isHidden()).toBe(true);
    expect(await page.content()).not.toContain(token);
    journey.link = link;
  });

  it('the invitee enrols in a second browser with its own authenticator, saves ten codes, signs in and sees the organization as viewer', async () => {
    member = await device();
    const { page } = member;
    const navigation = page.waitForRequest((request) => new URL(request.url()).pathname === '/identity/enroll');
    const { enrollment, codes } = await enrollWithLink(page, journey.link, 'Grace Hopper');
    expect((await navigation).url()).toBe(`${demo.origin}/identity/enroll`);
    expect(enrollment).toMatchObject({ organizationId: journey.organizationId, membership: { role: 'viewer' } });
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    journey.memberUserId = enrollment.userId;
    expect(journey.memberUserId).not.toBe(journey.ownerUserId);

    await page.getByRole('link', { name: 'Continue to sign in with your passkey' }).click();
    const { session } = await signIn(page);
    expect(session.userId).toBe(journey.memberUserId);
    expect(await page.locator('#me-name').textContent()).toBe('Grace Hopper');

    await page.goto('/identity/organizations');
    await expectSuccess(page, page.getByRole('heading', { name: 'Your organizations' }));
    expect(await page.locator('#organizations-body tr').count()).toBe(1);
    expect(await page.getByRole('row', { name: /Difference Engines/ }).textContent()).toContain('viewer');
    await page.getByRole('link', { name: 'Difference Engines' }).click();
    await expectSuccess(page, page.getByRole('heading', { name: 'Difference Engines', level: 2 }));
    expect(await page.locator('#members-body tr').count()).toBe(2);
    // Management controls are for owners and admins; the server refuses a viewer regardless.
    for (const heading of ['Audit log', 'Service identities', 'Settings'])
      expect(await page.getByRole('heading', { name: heading }).isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: 'Create invitation' }).isVisible()).toBe(false);
    const audit = await page.request.get(`${organizationApi('/audit-events')}`);
    expect(audit.status()).toBe(404);
    expect(((await audit.json()) as { error: { code: string } }).error.code).toBe('not_found');
    await screenshot(page, 'organization-as-viewer');
  });

  it('the owner reloads the organization: the member joined, and the audit log shows the invitation created and accepted, newest first', async () => {
    const { page } = owner;
    await openOrganization(page, 'Difference Engines');
    const graceRow = page.locator('#members-body tr').filter({ hasText: journey.memberUserId });
    expect(await graceRow.textContent()).toContain('viewer');
    expect(await page.getByRole('row', { name: /grace@example\.com/ }).textContent()).toContain('accepted');

    const events = await auditEvents(page);
    expect(await shownEventIds(page)).toEqual(events.map((event) => event.id));
    const actions = events.map((event) => event.action);
    for (const action of ['invitation.created', 'invitation.accepted', 'membership.created', 'organization.created'])
      expect(actions).toContain(action);
    expect(actions.indexOf('invitation.accepted')).toBeLessThan(actions.indexOf('invitation.created'));
    expect(actions.indexOf('invitation.created')).toBeLessThan(actions.indexOf('organization.created'));
    const times = events.map((event) => Date.parse(event.occurredAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    for (const action of ['invitation.created', 'invitation.accepted'])
      await expectSuccess(page, page.locator('#audit-body tr').filter({ hasText: action }).first());
    expect(await page.getByRole('button', { name: 'Load more' }).isVisible()).toBe(false);
    await expectSuccess(page, page.getByText('That is every event.'));
    await screenshot(page, 'organization-audit-log');
  });

  it('changes the member’s role (ending their sessions), invites and revokes, renames, and pages the audit log with nextCursor', async () => {
    const { page } = owner;
    const graceRow = page.locator('#members-body tr').filter({ hasText: journey.memberUserId });
    await changeMemberRole(page, graceRow, 'publisher');
    expect(await graceRow.textContent()).toContain('publisher');
    await member.page.goto('/identity');
    await expectSuccess(member.page, signInButton(member.page));

    await submitInvitation(page, 'charles@example.com', 'admin');
    await expectSuccess(page, page.getByRole('row', { name: /charles@example\.com/ }));
    await page.getByRole('button', { name: 'Revoke the invitation for charles@example.com' }).click();
    await expectSuccess(page, page.getByRole('status').filter({ hasText: 'no longer works' }));
    expect(await page.getByRole('row', { name: /charles@example\.com/ }).textContent()).toContain('revoked');
    expect(await page.locator('#invitation-secret').isHidden()).toBe(true);

    await page.getByLabel('Organization name', { exact: true }).fill('Difference Engine No. 2');
    await page.getByRole('button', { name: 'Rename' }).click();
    await expectSuccess(page, page.getByRole('heading', { name: 'Difference Engine No. 2', level: 2 }));

    const events = await auditEvents(page);
    expect(events.length).toBeGreaterThan(10);
    const firstPage = waitForApi(page, 'GET', organizationApi('/audit-events'));
    await page.reload();
    const first = (await (await firstPage).json()) as { events: AuditEvent[]; nextCursor?: string };
    expect(first.events).toHaveLength(10);
    expect(first.nextCursor).toBeDefined();
    const more = page.getByRole('button', { name: 'Load more' });
    await expectSuccess(page, more);
    expect(await shownEventIds(page)).toEqual(events.slice(0, 10).map((event) => event.id));
    await screenshot(page, 'organization-members-audit');

    const nextPage = waitForApi(page, 'GET', organizationApi('/audit-events'));
    await more.click();
    const next = await nextPage;
    expect(new URL(next.url()).searchParams.get('cursor')).toBe(first.nextCursor);
    await expectSuccess(page, page.getByText('That is every event.'));
    expect(await shownEventIds(page)).toEqual(events.map((event) => event.id));
    expect(await more.isVisible()).toBe(false);
    const actions = events.map((event) => event.action);
    for (const action of ['membership.changed', 'invitation.revoked', 'organization.changed'])
      expect(actions).toContain(action);
  });

  it('service identities: create (step-up) with the token shown once and copyable, then issue, rotate and revoke credentials, and revoke the identity', async () => {
    const { page } = owner;
    const identities = organizationApi('/service-identities');
    await pastRecentPasskeyWindow(page);
    const { creations, field } = await createServiceIdentityWithStepUp(page, identities, {
      name: 'CI publisher',
      description: 'Publishes from the main branch',
      capabilities: 'package.publish',
      lifetimeDays: '7',
    });
    expect(creations.map((response) => response.status())).toEqual([403, 201]);
    expect(creations[1]!.request().postDataJSON()).toEqual({
      name: 'CI publisher',
      description: 'Publishes from the main branch',
      capabilities: ['package.publish'],
      lifetimeSeconds: 7 * 86_400,
    });
    const created = (await creations[1]!.json()) as {
      identity: { id: string };
      credential: { id: string; publicPrefix: string };
      token: string;
    };
    expect(await field.inputValue()).toBe(created.token);
    await page.getByRole('button', { name: 'Copy the secret token' }).click();
    await expectSuccess(page, page.getByRole('status').filter({ hasText: 'token was copied' }));
    expect(await clipboardText(page)).toBe(created.token);
    const row = page.getByRole('row', { name: /CI publisher/ });
    expect(await row.textContent()).toContain('package.publish');
    expect(await row.textContent()).toContain('active');
    await screenshot(page, 'organization-service-token');

    // The token shown is a working bearer credential of this organization (and nothing keeps it).
    const packages = `${demo.origin}/orgs/${journey.organizationId}/packages`;
    const bearer = { authorization: `Bearer ${created.token}` };
    expect((await fetch(packages, { headers: bearer })).status).toBe(200);
    const stored = await storedPageState(page);
    expect(stored).not.toContain(created.token);

    await page.getByRole('button', { name: 'Show the credentials of CI publisher' }).click();
    await expectSuccess(page, page.getByRole('heading', { name: 'Credentials of CI publisher' }));
    const credentialRows = page.locator('#credentials-body tr');
    expect(await credentialRows.count()).toBe(1);
    expect(await credentialRows.first().textContent()).toContain(created.credential.publicPrefix);

    // Issue a second credential, rotate the first, revoke the second (each may ask for a passkey).
    const issued = await issueCredential(page, `${identities}/${created.identity.id}/credentials`, 'package.publish');
    await expectSuccess(page, page.getByRole('status').filter({ hasText: 'New credential for “CI publisher” issued' }));
    expect(await field.inputValue()).toBe(issued.token);
    expect(await credentialRows.count()).toBe(2);

    const first = created.credential.publicPrefix;
    await page.getByRole('button', { name: `Rotate credential ${first}` }).click();
    await expectSuccess(page, page.getByRole('status').filter({ hasText: `Rotated credential ${first}` }));
    const rotatedToken = await field.inputValue();
    expect([created.token, issued.token]).not.toContain(rotatedToken);
    expect(await credentialRows.count()).toBe(3);
    expect(await credentialRows.filter({ hasText: first }).textContent()).toContain('rotated');

    await page.getByRole('button', { name: `Revoke credential ${issued.credential.publicPrefix}` }).click();
    await expectSuccess(page, page.getByRole('status').filter({ hasText: 'its token stopped working' }));
    expect(await credentialRows.filter({ hasText: issued.credential.publicPrefix }).textContent()).toContain('revoked');
    expect((await fetch(packages, { headers: { authorization: `Bearer ${issued.token}` } })).status).toBe(401);
    await screenshot(page, 'organization-service-credentials');

    await page.getByRole('button', { name: 'Revoke service identity CI publisher' }).click();
    await expectSuccess(page, page.getByRole('status').filter({ hasText: 'and all its credentials were revoked' }));
    expect(await row.textContent()).toContain('revoked');
    expect(await page.getByRole('button', { name: /^Rotate credential/ }).count()).toBe(0);
    expect((await fetch(packages, { headers: { authorization: `Bearer ${rotatedToken}` } })).status).toBe(401);
    const actions = (await auditEvents(page)).map((event) => event.action);
    for (const action of [
      'service_identity.created',
      'service_credential.created',
      'service_credential.rotated',
      'service_credential.revoked',
      'service_identity.revoked',
    ])
      expect(actions).toContain(action);
  });

  it('an existing account joins another organization by pasting its invitation link (route 33)', async () => {
    await openOrganizationAt(
      owner.page,
      `/identity/organizations/${journey.firstOrganizationId}`,
      'Analytical Engines',
    );
    await submitInvitation(owner.page, 'Grace@Example.com');
    const field = owner.page.getByLabel('Enrolment link', { exact: true });
    await expectSuccess(owner.page, field);
    const link = await field.inputValue();

    const { page } = member;
    await signIn(page);
    await page.getByRole('link', { name: 'Your organizations' }).click();
    const answer = await acceptInvitationLink(page, link);
    expect(answer.status()).toBe(200);
    expect(answer.request().postDataJSON()).toEqual({
      token: new URLSearchParams(new URL(link).hash.slice(1)).get('token'),
    });
    await expectSuccess(page, page.getByRole('status').filter({ hasText: 'you joined as viewer' }));
    expect(await page.getByRole('row', { name: /Analytical Engines/ }).textContent()).toContain('viewer');
    expect(await page.locator('#organizations-body tr').count()).toBe(2);
    await screenshot(page, 'organizations-invitation-accepted');
  });

  it('deletes an organization only with its slug typed and a fresh passkey check; it leaves the list', async () => {
    const { page } = owner;
    await openOrganizationAt(page, `/identity/organizations/${journey.firstOrganizationId}`, 'Analytical Engines');
    const confirmation = page.getByLabel('To delete this organization, type its slug', { exact: true });
    await confirmation.fill('analytical');
    await page.getByRole('button', { name: 'Delete organization' }).click();
    await expectSuccess(page, page.getByRole('status').filter({ hasText: 'Nothing deleted' }));

    await pastRecentPasskeyWindow(page);
    const deletions = await deleteOrganizationWithStepUp(
      page,
      confirmation,
      'analytical-engines',
      'Analytical Engines',
    );
    expect(deletions).toEqual([403, 200]);

    await page.goto('/identity/organizations');
    await expectSuccess(page, page.getByRole('heading', { name: 'Your organizations' }));
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
    ]) {
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
    await screenshot(page, 'organization-not-found');
  });

  it('no page threw and no Content-Security-Policy violation happened on any device', () => {
    expect(devices.flatMap((opened) => opened.problems)).toEqual([]);
  });
});
