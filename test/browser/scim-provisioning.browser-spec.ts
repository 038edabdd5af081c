import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectHardenedPage, screenshot, storedPageState, type BrowserDevice } from './support/browser.js';
import { BrowserHarness } from './support/harness.js';
import { bootstrapOwner, expectSuccess, FIRST_OWNER, signIn, uuidV7 } from './support/identity-pages.js';
import { OrganizationJourney } from './support/organization-journey.js';
import { expectCopied, openOrganization, ORGANIZATIONS } from './support/organization-pages.js';
import {
  askRevoke,
  confirmRevoke,
  connectionCells,
  connectionsPath,
  createConnection,
  provisioningPagePath,
  rotateConnection,
  scimCall,
  shownEvents,
  shownToken,
} from './support/provisioning-pages.js';

const ORGANIZATION = FIRST_OWNER.organizationName;
/** `IssuedScimConnection.token`: the public selector (a UUID), a dot, 32 random bytes. */
const SCIM_TOKEN = /^[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}$/;
const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
/** The Tessera extension of a provisioned User naming the identity user it is. */
const IDENTITY_EXTENSION = 'urn:tessera:params:scim:schemas:extension:identity:1.0:User';

/**
 * Issue 15's demo panel in headless Chromium: the owner opens the organization's provisioning
 * page, creates an Okta connection with a group-to-role rule (confirming with the passkey once
 * past the recent-passkey window) and reads its token, shown once. The test then plays the
 * identity provider over HTTP with that token — a user, then a group with the user as member that
 * the rule maps to `publisher` — and the page lists the provisioning events. Rotating shows a new
 * token while the old one still works; revoking, after a confirmation, ends both. The tests share
 * one demo and run in order.
 */
describe('SCIM provisioning page in Chromium', () => {
  let harness: BrowserHarness;
  let owner: BrowserDevice;
  const journey = new OrganizationJourney();
  let organizationId = '';
  let connectionPath = '';
  let firstToken = '';
  let secondToken = '';
  let provisionedUserId = '';

  beforeAll(async () => {
    harness = await BrowserHarness.start(journey.demoEnv());
    owner = await harness.device();
    journey.trackPasskeyChecks(owner.page);
  });

  afterAll(() => harness?.stop());

  it('asks a signed-out visitor to sign in first', async () => {
    const { page } = owner;
    await expectHardenedPage(page, await page.goto(provisioningPagePath(uuidV7())));
    await expectSuccess(page, page.getByRole('heading', { name: 'Sign in first' }));
  });

  it('the owner opens the provisioning page from the organization page (another organization gets a notice): hardened, the base URL to paste, nothing yet', async () => {
    const { page, context } = owner;
    const created = await bootstrapOwner(page, { secret: harness.demo.bootstrapSecret, ...FIRST_OWNER });
    organizationId = created.organizationId;
    await signIn(page);
    await page.goto(provisioningPagePath(uuidV7()));
    await expectSuccess(page, page.getByText('you cannot manage its provisioning'));
    expect(await page.locator('#provisioning').isHidden()).toBe(true);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: harness.demo.origin });
    await openOrganization(page, `/identity/organizations/${organizationId}`, ORGANIZATION);

    const link = page.getByRole('link', { name: 'Manage provisioning (SCIM)' });
    expect(await link.getAttribute('href')).toBe(provisioningPagePath(organizationId));
    await link.click();
    await expectSuccess(page, page.getByRole('heading', { name: ORGANIZATION, level: 2 }));
    await expectHardenedPage(page, await page.reload());
    await expectSuccess(page, page.getByText('No SCIM connections yet.'));
    await expectSuccess(page, page.getByText('No provisioning events yet.'));
    expect(await page.getByRole('link', { name: `Back to ${ORGANIZATION}` }).getAttribute('href')).toBe(
      `/identity/organizations/${organizationId}`,
    );

    const baseUrl = `${harness.demo.origin}/scim/v2`;
    expect(await page.getByLabel('SCIM base URL', { exact: true }).inputValue()).toBe(baseUrl);
    await expectCopied(page, 'Copy the SCIM base URL', 'The SCIM base URL was copied', baseUrl);
  });

  it('creates an Okta connection with a group rule, confirming with the passkey; its token is shown once', async () => {
    const { page } = owner;
    await journey.pastRecentPasskeyWindow(page);
    const posts = await createConnection(page, organizationId, 'okta', [
      { kind: 'displayName', group: 'Engineering', role: 'publisher' },
    ]);
    expect(posts.map((response) => response.status())).toEqual([403, 201]);
    expect(((await posts[0]!.json()) as { error: { code: string } }).error.code).toBe('step_up_required');
    expect(posts[1]!.request().postDataJSON()).toEqual({
      providerName: 'okta',
      groupRoles: [{ match: { displayName: 'Engineering' }, role: 'publisher' }],
    });
    const issued = (await posts[1]!.json()) as {
      connection: { id: string; state: string; baseUrl: string };
      token: string;
    };
    expect(issued.connection).toMatchObject({ state: 'active', baseUrl: `${harness.demo.origin}/scim/v2` });
    expect(issued.token).toMatch(SCIM_TOKEN);
    connectionPath = `${connectionsPath(organizationId)}/${issued.connection.id}`;

    firstToken = await shownToken(page);
    expect(firstToken).toBe(issued.token);
    await expectCopied(page, 'Copy the bearer token', 'The SCIM token was copied', firstToken);
    expect(await connectionCells(page, 'Okta')).toEqual(['Oktaokta', 'active', 'group “Engineering” → publisher']);
    expect(await storedPageState(page)).not.toContain(firstToken);
    const listed = await page.request.get(connectionsPath(organizationId));
    expect(listed.status()).toBe(200);
    expect(await listed.text()).not.toContain(firstToken.split('.')[1]);
    await screenshot(page, 'scim-provisioning-created');

    // Shown once: a reload shows the connection, never its token again.
    await page.reload();
    await expectSuccess(page, page.getByText('group “Engineering” → publisher'));
    expect(await page.locator('#scim-secret').isHidden()).toBe(true);
    expect(await page.content()).not.toContain(firstToken);
  });

  it('the identity provider provisions with that token: a user, then a group whose rule makes them publisher', async () => {
    const { origin } = harness.demo;
    const user = await scimCall(origin, firstToken, 'POST', '/scim/v2/Users', {
      schemas: [USER_SCHEMA],
      userName: 'grace.hopper@example.com',
      externalId: '00u-grace',
      name: { givenName: 'Grace', familyName: 'Hopper' },
      displayName: 'Grace Hopper',
      emails: [{ value: 'grace.hopper@example.com', type: 'work', primary: true }],
      active: true,
      password: 'placeholder-the-server-discards',
    });
    expect([user.status, user.contentType]).toEqual([201, 'application/scim+json; charset=utf-8']);
    expect(user.body).toMatchObject({ userName: 'grace.hopper@example.com', active: true });
    expect(user.body).not.toHaveProperty('password');
    provisionedUserId = user.body[IDENTITY_EXTENSION].userId as string;

    const group = await scimCall(origin, firstToken, 'POST', '/scim/v2/Groups', {
      schemas: [GROUP_SCHEMA],
      displayName: 'Engineering',
      members: [{ value: user.body.id }],
    });
    expect(group.status).toBe(201);
    expect(group.body).toMatchObject({ displayName: 'Engineering', members: [{ value: user.body.id }] });

    const memberships = await owner.page.request.get(`${ORGANIZATIONS}/${organizationId}/memberships`);
    const members = (await memberships.json()) as { userId: string; role: string; state: string }[];
    expect(members.find((member) => member.userId === provisionedUserId)).toMatchObject({
      role: 'publisher',
      state: 'active',
    });
  });

  it('after a reload the page lists the provisioning events, and only those', async () => {
    const { page } = owner;
    await page.reload();
    await expectSuccess(page, page.locator('#scim-events-body tr').filter({ hasText: 'scim.group_changed' }).first());
    const events = await shownEvents(page);
    const actions = events.map((event) => event.action);
    for (const action of ['scim_connection.created', 'scim.mutation_applied', 'scim.group_changed', 'user.created'])
      expect(actions).toContain(action);
    expect(events.find((event) => event.action === 'user.created')!.outcome).toContain('(scim:okta)');
    // The owner's own sign-ins and the organization's creation are in the audit log, not here.
    for (const event of events)
      expect([event, /^scim|\(scim:okta\)/.test(event.action + event.outcome)]).toEqual([event, true]);
    expect(events.length).toBeLessThanOrEqual(20);
    await screenshot(page, 'scim-provisioning-events');
  });

  it('rotating shows a new token once; the previous one keeps working during the overlap', async () => {
    const { page } = owner;
    const statuses = await rotateConnection(page, connectionPath, 'Okta');
    expect(statuses.at(-1)).toBe(200);
    secondToken = await shownToken(page);
    expect(secondToken).toMatch(SCIM_TOKEN);
    expect(secondToken).not.toBe(firstToken);
    expect(await page.locator('#scim-secret-purpose').textContent()).toContain(
      'The previous token keeps working for 10 more minutes',
    );
    for (const token of [firstToken, secondToken])
      expect((await scimCall(harness.demo.origin, token, 'GET', '/scim/v2/Users?count=1')).status).toBe(200);
  });

  it('revoking asks first; once confirmed both tokens stop working and the provisioned member stays', async () => {
    const { page } = owner;
    await askRevoke(page, 'Okta');
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.locator('#scim-revoke').isHidden()).toBe(true);
    expect((await connectionCells(page, 'Okta'))[1]).toBe('active');

    await askRevoke(page, 'Okta');
    await screenshot(page, 'scim-provisioning-revoke-confirm');
    const revoked = await confirmRevoke(page, connectionPath, 'Okta');
    expect(revoked.status()).toBe(200);
    expect(await revoked.json()).toMatchObject({ state: 'revoked' });
    expect((await connectionCells(page, 'Okta'))[1]).toBe('revoked');
    expect(await page.getByRole('button', { name: 'Rotate the token of the Okta connection' }).count()).toBe(0);
    for (const token of [firstToken, secondToken])
      expect((await scimCall(harness.demo.origin, token, 'GET', '/scim/v2/Users?count=1')).status).toBe(401);

    await page.reload();
    await expectSuccess(page, page.locator('#scim-events-body tr').filter({ hasText: 'scim_connection.revoked' }));
    expect((await shownEvents(page)).map((event) => event.action)).toContain('scim_connection.rotated');
    const memberships = await page.request.get(`${ORGANIZATIONS}/${organizationId}/memberships`);
    const members = (await memberships.json()) as { userId: string; state: string }[];
    expect(members.find((member) => member.userId === provisionedUserId)?.state).toBe('active');
  });

  it('a second connection for the same provider can be created once the first is revoked', async () => {
    const { page } = owner;
    const posts = await createConnection(page, organizationId, 'okta', []);
    expect(posts.at(-1)!.status()).toBe(201);
    expect(await connectionCells(page, 'none (everyone')).toEqual([
      'Oktaokta',
      'active',
      'none (everyone provisioned joins as viewer)',
    ]);
    expect(await shownToken(page)).toMatch(SCIM_TOKEN);
  });

  it('no device saw a page error or a CSP violation', () => {
    expect(harness.problems()).toEqual([]);
  });
});
