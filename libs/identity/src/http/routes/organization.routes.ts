import { bootstrapAvailable } from '../../organizations/bootstrap.service.js';
import type { OrganizationSummaryEntry } from '../../organizations/organization.service.js';
import type { OrganizationRecord } from '../../store/identity-records.js';
import { respondIdentityJson } from '../identity-response.js';
import { membershipView, organizationView } from '../identity-views.js';
import { fields, route, type IdentityRouteTable } from './route-table.js';
import { arrayOf, ref, SETS_SESSION_COOKIE } from './route-doc.js';
import { grantSession } from './session-grant.js';

const ORGANIZATIONS = '/identity/v1/organizations';
const ORGANIZATION = `${ORGANIZATIONS}/:orgId`;
const MEMBERSHIP = `${ORGANIZATION}/memberships/:membershipId`;
const CREATE_BODY = fields({ name: { kind: 'text', min: 1, max: 200 }, slug: { kind: 'slug' } });
const RENAME_BODY = fields({ name: { kind: 'text', min: 1, max: 200 } });
const ROLE_BODY = fields({ role: { kind: 'text', min: 1, max: 16 } });
const BOOTSTRAP_BODY = fields({
  secret: { kind: 'text', min: 16, max: 512 },
  displayName: { kind: 'text', min: 1, max: 200 },
  primaryEmail: { kind: 'email' },
  organizationName: { kind: 'text', min: 1, max: 200 },
  organizationSlug: { kind: 'slug' },
});

/** `OrganizationSummary` (identity-http §4.5): the organization with the caller's role in it (`device` for a device). */
function organizationSummaryView(organization: OrganizationRecord, role: OrganizationSummaryEntry['role']) {
  return { id: organization.id, name: organization.name, slug: organization.slug, role };
}

/**
 * Organization routes 21–28 and 46 (identity-http §4.1): list, create, read, rename and
 * soft-delete organizations, list memberships, change a role, remove a membership, and the
 * one-time bootstrap (anonymous, rate limited, 404 unless pending with a secret).
 */
export const ORGANIZATION_ROUTES: IdentityRouteTable = [
  route({
    method: 'GET',
    path: ORGANIZATIONS,
    callers: { user: true, device: true },
    doc: {
      tag: 'organizations',
      summary: 'The caller’s organizations',
      description:
        'A device access token needs the `identity.organizations` scope (else 404) and sees exactly its organization, with role `device`.',
      responses: {
        200: {
          description: 'Each organization with the caller’s role, sorted by id',
          body: arrayOf(ref('OrganizationSummary')),
        },
      },
      errors: ['not_found'],
    },
    handle: async (call) => {
      const entries = await call.services.organizations.list(call.caller().context);
      respondIdentityJson(
        call.exchange,
        200,
        entries.map(({ organization, role }) => organizationSummaryView(organization, role)),
      );
    },
  }),
  route({
    method: 'POST',
    path: ORGANIZATIONS,
    callers: { user: true },
    body: CREATE_BODY,
    doc: {
      tag: 'organizations',
      summary: 'Create an organization',
      description: 'Needs a recent passkey verification; the creator becomes its owner.',
      responses: { 201: { description: 'The organization', body: ref('Organization') } },
      errors: ['step_up_required', 'conflict', 'not_found'],
    },
    handle: async (call) => {
      const caller = call.caller();
      const { name, slug } = await call.body();
      respondIdentityJson(
        call.exchange,
        201,
        organizationView(await call.services.organizations.create(caller, name, slug)),
      );
    },
  }),
  route({
    method: 'GET',
    path: ORGANIZATION,
    callers: { user: true, device: true },
    doc: {
      tag: 'organizations',
      summary: 'One of the caller’s organizations',
      description:
        'A device access token needs the `identity.organizations` scope and reads only its own organization, with role `device` (anything else 404).',
      responses: { 200: { description: 'The organization with the caller’s role', body: ref('OrganizationSummary') } },
      errors: ['not_found'],
    },
    handle: async (call) => {
      const caller = call.caller();
      const { organization, role } = call.services.organizations.read(caller.context, call.uuid('orgId'));
      respondIdentityJson(call.exchange, 200, organizationSummaryView(organization, role));
    },
  }),
  route({
    method: 'PATCH',
    path: ORGANIZATION,
    callers: { user: true },
    body: RENAME_BODY,
    doc: {
      tag: 'organizations',
      summary: 'Rename an organization',
      description: 'Needs `organization.update` there.',
      responses: { 200: { description: 'The organization', body: ref('Organization') } },
      errors: ['not_found', 'conflict'],
    },
    handle: async (call) => {
      const caller = call.caller();
      const organizationId = call.uuid('orgId');
      const { name } = await call.body();
      const renamed = await call.services.organizations.rename(caller, organizationId, name);
      respondIdentityJson(call.exchange, 200, organizationView(renamed));
    },
  }),
  route({
    method: 'DELETE',
    path: ORGANIZATION,
    callers: { user: true },
    doc: {
      tag: 'organizations',
      summary: 'Delete an organization (soft)',
      description: 'Needs `organization.delete` there, then a recent passkey verification.',
      responses: { 200: { description: 'The organization (state `deleted`)', body: ref('Organization') } },
      errors: ['not_found', 'step_up_required', 'conflict'],
    },
    handle: async (call) => {
      const caller = call.caller();
      const deleted = await call.services.organizations.delete(caller, call.uuid('orgId'));
      respondIdentityJson(call.exchange, 200, organizationView(deleted));
    },
  }),
  route({
    method: 'GET',
    path: `${ORGANIZATION}/memberships`,
    callers: { user: true },
    doc: {
      tag: 'organizations',
      summary: 'An organization’s memberships',
      description: 'Needs `membership.read` there.',
      responses: { 200: { description: 'The memberships', body: arrayOf(ref('Membership')) } },
      errors: ['not_found'],
    },
    handle: async (call) => {
      const caller = call.caller();
      const { memberships: service } = call.services.organizations;
      const memberships = await service.list(caller.context, call.uuid('orgId'));
      const people = await service.people(memberships);
      respondIdentityJson(
        call.exchange,
        200,
        memberships.map((membership) => membershipView(membership, people.get(membership.userId))),
      );
    },
  }),
  route({
    method: 'PATCH',
    path: MEMBERSHIP,
    callers: { user: true },
    body: ROLE_BODY,
    doc: {
      tag: 'organizations',
      summary: 'Change a member’s role',
      description:
        'Needs `membership.update`; making or unmaking an owner only by an owner, with a recent passkey verification. A no-op answers the current membership.',
      responses: { 200: { description: 'The membership', body: ref('Membership') } },
      errors: ['not_found', 'step_up_required', 'conflict'],
    },
    handle: async (call) => {
      const caller = call.caller();
      const organizationId = call.uuid('orgId');
      const membershipId = call.uuid('membershipId');
      const { role } = await call.body();
      const changed = await call.services.organizations.memberships.changeRole(
        caller,
        organizationId,
        membershipId,
        role,
      );
      const people = await call.services.organizations.memberships.people([changed]);
      respondIdentityJson(call.exchange, 200, membershipView(changed, people.get(changed.userId)));
    },
  }),
  route({
    method: 'DELETE',
    path: MEMBERSHIP,
    callers: { user: true },
    doc: {
      tag: 'organizations',
      summary: 'Remove a membership',
      description: 'Needs `membership.remove` and a recent passkey verification; an owner only by an owner.',
      responses: { 200: { description: 'The membership (state `removed`)', body: ref('Membership') } },
      errors: ['not_found', 'step_up_required', 'conflict'],
    },
    handle: async (call) => {
      const caller = call.caller();
      const organizationId = call.uuid('orgId');
      const membershipId = call.uuid('membershipId');
      const removed = await call.services.organizations.memberships.remove(caller, organizationId, membershipId);
      const people = await call.services.organizations.memberships.people([removed]);
      respondIdentityJson(call.exchange, 200, membershipView(removed, people.get(removed.userId)));
    },
  }),
  route({
    method: 'POST',
    path: '/identity/v1/bootstrap',
    callers: { anonymous: true },
    available: bootstrapAvailable,
    rateLimit: { policy: 'bootstrap', key: 'peer' },
    signIn: 'bootstrap',
    body: BOOTSTRAP_BODY,
    doc: {
      tag: 'organizations',
      summary: 'Bootstrap the first owner and organization',
      description:
        'Only while the bootstrap lifecycle is `pending` with a secret configured and the store is empty (404 otherwise). Answers a restricted session: register a passkey next.',
      responses: {
        201: { description: 'Bootstrapped', body: ref('BootstrapCreated'), cookies: [SETS_SESSION_COOKIE] },
      },
      errors: ['conflict'],
    },
    handle: async (call) => {
      const done = await call.services.organizations.bootstrap.run(call, await call.body());
      const granted = grantSession(call.kernel, call.exchange, done.issued, done.session);
      respondIdentityJson(call.exchange, 201, {
        userId: done.user.id,
        organization: organizationView(done.organization),
        ownerMembership: membershipView(done.membership),
        sessionId: granted.sessionId,
        idleExpiresAt: granted.idleExpiresAt,
        absoluteExpiresAt: granted.absoluteExpiresAt,
        csrfToken: granted.csrfToken,
      });
    },
  }),
];
