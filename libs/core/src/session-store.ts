import { Inject } from '@nestjs/common';
import type { CorePrincipal } from './principal.js';

/**
 * An active core session as stored (never the secret). Not an identity session; no organization scope.
 *
 * @example
 * const session: CoreSession | null = await store.findByToken(token);
 */
export interface CoreSession {
  readonly id: string;
  readonly principal: CorePrincipal;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly lastSeenAt: Date;
}

/**
 * What `create` returns once: the session id and its secret token, which is never stored.
 *
 * @example
 * const grant: CoreSessionGrant = await store.create(principal, 3600);
 * exchange.appendHeader('set-cookie', cookies.sessionCookie(grant));
 */
export interface CoreSessionGrant {
  readonly id: string;
  /** The bearer secret (`tcs_` + 43 base64url characters); only its SHA-256 is stored. */
  readonly token: string;
  readonly expiresAt: Date;
}

/**
 * The session-store port. Stores only the SHA-256 digest of each token; every command is atomic.
 * "Active" = not revoked and `expiresAt` after the store's clock.
 *
 * @example
 * const { token } = await store.create(principal, 3600);
 * const session = await store.findByToken(token); // later request
 * await store.revoke(session!.id);
 */
export interface CoreSessionStore {
  /** Creates a session for `principal` lasting `ttlSeconds` (integer, 1 s – 400 days). */
  create(principal: CorePrincipal, ttlSeconds: number): Promise<CoreSessionGrant>;
  /** The active session of a token; `null` for malformed, unknown, expired or revoked tokens. */
  findByToken(token: string): Promise<CoreSession | null>;
  /** Slides an active session: `lastSeenAt` = now, `expiresAt` = now + `ttlSeconds`; `null` when not active. */
  touch(id: string, ttlSeconds: number): Promise<CoreSession | null>;
  /** Revokes one session; `true` when this call revoked an active session. */
  revoke(id: string): Promise<boolean>;
  /** Revokes every active session of a principal (by kind and id); returns how many. */
  revokeAllFor(principal: Pick<CorePrincipal, 'kind' | 'id'>): Promise<number>;
}

/**
 * Injection token of the {@link CoreSessionStore} port.
 *
 * @example
 * { provide: CoreSessionStore, useFactory: (orm: MikroORM) => new MikroOrmCoreSessionStore(orm.em), inject: [MikroORM] }
 */
export const CoreSessionStore: unique symbol = Symbol('CoreSessionStore');

/**
 * Injects the application's {@link CoreSessionStore}.
 *
 * @example
 * constructor(@InjectCoreSessionStore() private readonly sessions: CoreSessionStore) {}
 */
export function InjectCoreSessionStore(): PropertyDecorator & ParameterDecorator {
  return Inject(CoreSessionStore);
}
