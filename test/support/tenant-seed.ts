import { MikroORM } from '@mikro-orm/core';
import request from 'supertest';
import type { OrganizationRole } from '@tessera/identity';
import { IdentityTestRows } from '@tessera/identity-testing';
import { seedPasskeySession, TEST_ORIGIN, type IdentityTestApp } from './identity-app.js';
import type { TestSession } from './passkey-client.js';

/** A seeded member: its user, membership and a passkey session (cookie + CSRF token). */
export interface SeededMember {
  readonly userId: string;
  readonly membershipId: string;
  readonly email: string;
  readonly session: TestSession;
}

/** Seeding rows of the app's database. */
export function tenantRows(identity: IdentityTestApp): IdentityTestRows {
  return new IdentityTestRows(identity.app.get(MikroORM).em);
}

/**
 * A user with `email` (unique unless given), an active `role` membership in `organizationId` and a
 * passkey session authenticated at `authenticatedAt` (now by default: a recent passkey, STEP).
 *
 * @example
 * const admin = await seedMember(identity, organizationId, 'admin');
 */
export async function seedMember(
  identity: IdentityTestApp,
  organizationId: string,
  role: OrganizationRole,
  over: { email?: string; authenticatedAt?: Date } = {},
): Promise<SeededMember> {
  const rows = tenantRows(identity);
  const email = over.email ?? `${role}-${Math.random().toString(36).slice(2, 10)}@example.com`;
  const userId = await rows.user({ email, at: identity.clock.now() });
  const membershipId = await rows.membership(organizationId, userId, { role, at: identity.clock.now() });
  const session = await seedPasskeySession(
    identity,
    userId,
    over.authenticatedAt === undefined ? {} : { authenticatedAt: over.authenticatedAt },
  );
  return { userId, membershipId, email, session };
}

/** A signed-in user with no membership anywhere. */
export async function seedOutsider(identity: IdentityTestApp, email?: string): Promise<SeededMember> {
  const rows = tenantRows(identity);
  const address = email ?? `outsider-${Math.random().toString(36).slice(2, 10)}@example.com`;
  const userId = await rows.user({ email: address, at: identity.clock.now() });
  return { userId, membershipId: '', email: address, session: await seedPasskeySession(identity, userId) };
}

/** A new active organization (seeded rows, no audit events); returns its id. */
export function seedOrganization(identity: IdentityTestApp, state?: 'active' | 'deleted'): Promise<string> {
  return tenantRows(identity).organization({ at: identity.clock.now(), ...(state ? { state } : {}) });
}

/** A GET carrying the session cookie. */
export function getAs(identity: IdentityTestApp, path: string, session?: TestSession) {
  const req = request(identity.app.getHttpServer()).get(path);
  return session ? req.set('cookie', session.cookie) : req;
}

/** A DELETE with the session cookie, `Origin` and `X-CSRF-Token`. */
export function deleteAs(identity: IdentityTestApp, path: string, session: TestSession) {
  return request(identity.app.getHttpServer())
    .delete(path)
    .set('origin', TEST_ORIGIN)
    .set('cookie', session.cookie)
    .set('x-csrf-token', session.csrfToken);
}

/** The error body without its request id (tenancy failures must be identical apart from it). */
export function withoutRequestId(body: { error?: Record<string, unknown> }): Record<string, unknown> {
  const { requestId: _ignored, ...rest } = body.error ?? {};
  return rest;
}

/** The exact 404 body (request id aside) every tenancy failure answers. */
export const NOT_FOUND = {
  code: 'not_found',
  message: 'The requested identity resource was not found',
  retryable: false,
};
