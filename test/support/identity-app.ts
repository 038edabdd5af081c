import type { INestApplication } from '@nestjs/common';
import type { TestDatabase } from '@tessera/database';
import { MikroORM } from '@mikro-orm/core';
import { issueSession, type FrozenClock, type IdentityConfig, type IdentityModuleOptions } from '@tessera/identity';
import { IdentityTestRows } from '@tessera/identity-testing';
import { bootIdentityHostApp } from './identity-host-app.js';
import { identityKernelOf } from './identity-kernel.js';

/** The origin the identity test apps are configured for (used as `Origin` on unsafe requests). */
export const TEST_ORIGIN = 'http://localhost:3000';

/** A booted identity app on its own real database, with its clock and generated secrets. */
export interface IdentityTestApp {
  readonly app: INestApplication;
  readonly clock: FrozenClock;
  readonly database: TestDatabase;
  /** Every secret value this app was configured with (tests scan responses and logs for them). */
  readonly secrets: readonly string[];
  readonly bootstrapSecret: string;
  close(): Promise<void>;
}

/**
 * `IdentityModule.forRoot` options a test app may add (administrative recovery's integrations,
 * application capability grants, host organization selectors).
 */
export type IdentityTestModuleOptions = Pick<
  IdentityModuleOptions,
  | 'platformAuthorizer'
  | 'notificationSink'
  | 'invitations'
  | 'capabilityResolvers'
  | 'organizationSelector'
  | 'federation'
  | 'scim'
  | 'health'
>;

/**
 * Boots `RouterModule` + `IdentityModule` (test environment, bootstrap pending) on a fresh
 * database (PGlite, or the `DATABASE_URL` server), with a frozen clock and random secrets;
 * `moduleOptions` adds module-level integrations (platform authorizer, notification sink).
 */
export async function bootIdentityApp(
  overrides: Partial<IdentityConfig> = {},
  start = '2026-07-14T08:15:30Z',
  moduleOptions: IdentityTestModuleOptions = {},
): Promise<IdentityTestApp> {
  return bootIdentityHostApp({ overrides, start, moduleOptions });
}

/** The `__Host-tessera_session` value from a response's `Set-Cookie`, if set. */
export function sessionCookieOf(headers: Record<string, unknown>): string | undefined {
  const cookies = (headers['set-cookie'] as string[] | undefined) ?? [];
  const cookie = cookies.find(
    (c) => c.startsWith('__Host-tessera_session=') && !c.startsWith('__Host-tessera_session=;'),
  );
  return cookie?.slice('__Host-tessera_session='.length).split(';')[0];
}

/**
 * Seeds an active user with a passkey session (the passkey ceremonies arrive with their own
 * feature): the session is minted with the app's own pepper and inserted as the store keeps it.
 * Returns the cookie header value and the CSRF token.
 */
export async function seedPasskeySession(
  identity: IdentityTestApp,
  userId?: string,
  over: { authenticatedAt?: Date } = {},
): Promise<{ userId: string; sessionId: string; cookie: string; csrfToken: string }> {
  const kernel = identityKernelOf(identity.app);
  const rows = new IdentityTestRows(identity.app.get(MikroORM).em);
  const owner = userId ?? (await rows.user({ at: identity.clock.now() }));
  const issued = issueSession(kernel.runtime, kernel.keys.sessionPepper, {
    userId: owner,
    assurance: 'passkey',
    authenticationMethod: 'passkey',
    authenticatedAt: over.authenticatedAt ?? identity.clock.now(),
    lifetimes: {
      idleSeconds: kernel.config.lifetimes.sessionIdleSeconds,
      absoluteSeconds: kernel.config.lifetimes.sessionAbsoluteSeconds,
    },
  });
  const epoch = (await rows.sql('select session_epoch from tessera_identity.users where id = ?', [owner]))[0]![
    'session_epoch'
  ] as number;
  await rows.session(issued.session, { userSessionEpoch: Number(epoch) });
  return {
    userId: owner,
    sessionId: issued.session.id,
    cookie: `__Host-tessera_session=${issued.cookieToken}`,
    csrfToken: issued.csrfToken,
  };
}
