import request from 'supertest';
import type { Response } from 'supertest';
import { MikroORM } from '@mikro-orm/core';
import type { OrganizationRole } from '@tessera/identity';
import { IdentityTestRows, type TestRow } from '@tessera/identity-testing';
import { seedPasskeySession, TEST_ORIGIN, type IdentityTestApp } from '../../support/identity-app.js';
import type { TestSession } from '../../support/passkey-client.js';

export const ORGANIZATIONS = '/identity/v1/organizations';

/** Path of one organization, or of one of its memberships. */
export const organizationPath = (organizationId: string) => `${ORGANIZATIONS}/${organizationId}`;
export const membershipsPath = (organizationId: string) => `${organizationPath(organizationId)}/memberships`;
export const membershipPath = (organizationId: string, membershipId: string) =>
  `${membershipsPath(organizationId)}/${membershipId}`;

export function rowsOf(identity: IdentityTestApp): IdentityTestRows {
  return new IdentityTestRows(identity.app.get(MikroORM).em);
}

/** A member of an organization with a seeded passkey session. */
export interface Member {
  readonly userId: string;
  readonly membershipId: string;
  readonly session: TestSession;
}

/**
 * A new user with a membership of `role` in `organizationId` (active unless told) and a passkey
 * session authenticated now (STEP holds) or `stepAgeMinutes` ago.
 */
export async function seedMember(
  identity: IdentityTestApp,
  organizationId: string,
  role: OrganizationRole,
  over: { state?: 'active' | 'suspended' | 'removed'; stepAgeMinutes?: number } = {},
): Promise<Member> {
  const rows = rowsOf(identity);
  const now = identity.clock.now();
  const userId = await rows.user({ at: now });
  const membershipId = await rows.membership(organizationId, userId, {
    role,
    at: now,
    ...(over.state ? { state: over.state } : {}),
  });
  const authenticatedAt = new Date(now.getTime() - (over.stepAgeMinutes ?? 0) * 60_000);
  const session = await seedPasskeySession(identity, userId, { authenticatedAt });
  return { userId, membershipId, session };
}

/** Another passkey session of a seeded user (fresh, or authenticated `stepAgeMinutes` ago). */
export async function anotherSession(
  identity: IdentityTestApp,
  userId: string,
  stepAgeMinutes = 0,
): Promise<TestSession> {
  const authenticatedAt = new Date(identity.clock.now().getTime() - stepAgeMinutes * 60_000);
  return seedPasskeySession(identity, userId, { authenticatedAt });
}

type Method = 'get' | 'post' | 'patch' | 'delete';

/**
 * One identity request with `session`'s cookie; unsafe methods carry `Origin` and `X-CSRF-Token`
 * and `body` as JSON when given.
 */
export function call(
  identity: IdentityTestApp,
  method: Method,
  path: string,
  session?: TestSession,
  body?: Record<string, unknown>,
): Promise<Response> {
  let req = request(identity.app.getHttpServer())[method](path);
  if (session) req = req.set('cookie', session.cookie);
  if (method !== 'get') {
    req = req.set('origin', TEST_ORIGIN);
    if (session) req = req.set('x-csrf-token', session.csrfToken);
  }
  return body === undefined ? req : req.send(body);
}

/** Status and envelope of an error answer, without its request id. */
export function withoutRequestId(res: Response): { status: number; contentType: unknown; body: unknown } {
  const error = { ...(res.body as { error: Record<string, unknown> }).error };
  delete error['requestId'];
  return { status: res.status, contentType: res.headers['content-type'], body: { error } };
}

/** The error code of a response (undefined for a success). */
export function codeOf(res: Response): string | undefined {
  return (res.body as { error?: { code: string } }).error?.code;
}

/** Audit rows of `action` about `targetId`. */
export function auditsOf(identity: IdentityTestApp, action: string, targetId: string): Promise<TestRow[]> {
  return rowsOf(identity).sql(
    'select * from tessera_identity.audit_events where action = ? and target_id = ? order by id',
    [action, targetId],
  );
}

/** The stored membership row. */
export async function membershipRow(identity: IdentityTestApp, membershipId: string): Promise<TestRow> {
  const [row] = await rowsOf(identity).sql('select * from tessera_identity.memberships where id = ?', [membershipId]);
  if (row === undefined) throw new Error(`no membership ${membershipId}`);
  return row;
}

/** The stored organization row. */
export async function organizationRow(identity: IdentityTestApp, organizationId: string): Promise<TestRow> {
  const [row] = await rowsOf(identity).sql('select * from tessera_identity.organizations where id = ?', [
    organizationId,
  ]);
  if (row === undefined) throw new Error(`no organization ${organizationId}`);
  return row;
}

/** The user's session epoch. */
export async function epochOf(identity: IdentityTestApp, userId: string): Promise<number> {
  const [row] = await rowsOf(identity).sql('select session_epoch from tessera_identity.users where id = ?', [userId]);
  return Number(row!['session_epoch']);
}
