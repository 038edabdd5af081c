import { randomBytes } from 'node:crypto';
import type {
  AuditActor,
  AuditEventInput,
  AuthenticationMethod,
  NewInvitation,
  NewSession,
  NewUser,
  OrganizationRole,
  StoredDigest,
} from '@tessera/identity';

/**
 * A canonical lower-case UUIDv7 whose time part is `at`.
 *
 * @example
 * const sessionId = testUuidV7(clock.now());
 */
export function testUuidV7(at: Date | number = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(at instanceof Date ? at.getTime() : at, 0, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Unpadded base64url of `size` random bytes (32 → the 43-character digest shape).
 *
 * @example
 * const receiptDigest = testBase64Url();
 */
export function testBase64Url(size = 32): string {
  return randomBytes(size).toString('base64url');
}

/**
 * A random keyed digest as the store keeps it (`hmac-sha256`, 43 characters, key version `v1`).
 *
 * @example
 * const tokenDigest = testDigest();
 */
export function testDigest(keyVersion = 'v1'): StoredDigest {
  return { algorithm: 'hmac-sha256', encoded: testBase64Url(), keyVersion };
}

/**
 * A rate-limit bucket key in the `<policy>:<43 base64url chars>` shape the schema requires.
 *
 * @example
 * await limiter.consume({ name: 'sign_in', limit: 5, windowSeconds: 60 }, testRateLimitKey('sign_in'), now);
 */
export function testRateLimitKey(policy: string): string {
  return `${policy}:${testBase64Url()}`;
}

/**
 * A new user with a unique `…@example.test` address.
 *
 * @example
 * const user = newTestUser({ displayName: 'Grace' });
 */
export function newTestUser(over: Partial<NewUser> = {}): NewUser {
  const id = over.id ?? testUuidV7();
  return {
    id,
    primaryEmail: `user-${randomBytes(6).toString('hex')}@example.test`,
    displayName: 'Ada Lovelace',
    ...over,
  };
}

/** Session-creating methods outside federation (those need provenance). */
export type TestSessionMethod = Exclude<AuthenticationMethod, 'oidc' | 'saml'>;

/**
 * A non-federated session to insert, issued at `at` (idle 30 min, absolute 12 h by default), its
 * assurance matching the method (passkey → `passkey`, otherwise `recovery`).
 *
 * @example
 * const replacement = newTestSession({ userId, at: clock.now(), familyId: old.familyId, rotationCounter: old.rotationCounter + 1 });
 */
export function newTestSession(input: {
  userId: string;
  at: Date;
  method?: TestSessionMethod;
  id?: string;
  familyId?: string;
  rotationCounter?: number;
  idleSeconds?: number;
  absoluteSeconds?: number;
}): NewSession {
  const method = input.method ?? 'passkey';
  const id = input.id ?? testUuidV7(input.at);
  const now = input.at.getTime();
  const absolute = now + (input.absoluteSeconds ?? 12 * 3600) * 1000;
  return {
    id,
    familyId: input.familyId ?? id,
    userId: input.userId,
    tokenDigest: testDigest(),
    csrfDigest: testDigest(),
    assurance: method === 'passkey' ? 'passkey' : 'recovery',
    authenticationMethod: method,
    label: null,
    platform: null,
    rotationCounter: input.rotationCounter ?? 0,
    authenticatedAt: input.at,
    idleExpiresAt: new Date(Math.min(now + (input.idleSeconds ?? 1800) * 1000, absolute)),
    absoluteExpiresAt: new Date(absolute),
    federation: null,
  };
}

/**
 * A pending invitation to `organizationId`, valid for 7 days from `at`.
 *
 * @example
 * const invitation = newTestInvitation({ organizationId, at: clock.now(), invitedByUserId: ownerId });
 */
export function newTestInvitation(input: {
  organizationId: string;
  at: Date;
  email?: string;
  role?: OrganizationRole;
  invitedByUserId?: string | null;
  expiresInSeconds?: number;
}): NewInvitation {
  return {
    id: testUuidV7(input.at),
    organizationId: input.organizationId,
    email: input.email ?? `invitee-${randomBytes(6).toString('hex')}@example.test`,
    role: input.role ?? 'publisher',
    tokenDigest: testDigest(),
    invitedByUserId: input.invitedByUserId ?? null,
    expiresAt: new Date(input.at.getTime() + (input.expiresInSeconds ?? 7 * 86_400) * 1000),
  };
}

/**
 * An audit event as the service builds it: fresh id, the given instant, pseudonymous request facts.
 *
 * @example
 * const audit = testAuditEvent({ action: 'session.revoked', at, actor: { type: 'user', userId }, target: { type: 'session', id } });
 */
export function testAuditEvent(input: {
  action: string;
  at: Date;
  actor?: AuditActor;
  organizationId?: string | null;
  target?: { type: string; id: string } | null;
  reasonCode?: string | null;
}): AuditEventInput {
  return {
    id: testUuidV7(input.at),
    actor: input.actor ?? { type: 'system' },
    organizationId: input.organizationId ?? null,
    action: input.action,
    target: input.target ?? null,
    outcome: 'succeeded',
    reasonCode: input.reasonCode ?? null,
    request: {
      requestId: `req_${testBase64Url(16)}`,
      method: 'POST',
      path: '/identity/v1/test',
      clientIpDigest: `v1.${testBase64Url()}`,
      trustedProxy: false,
    },
    occurredAt: input.at,
  };
}

/**
 * Text that every export encoding must carry through unchanged: quotes, commas, CR/LF, backslashes,
 * control characters, unicode (astral and U+2028), and every formula-leading character of the
 * CSV injection guard.
 */
const AWKWARD_TEXT = [
  'plain',
  'He said "hi", then left',
  'line\nbreak\r\nand CR\r',
  '=HYPERLINK("http://x","y")',
  '+1',
  '-2',
  '@SUM(A1)',
  '\tTabbed',
  '\rCarriage',
  "'quoted already",
  'back\\slash \\u0041 \\n',
  'ctl\u0001\u0008\u000b\u000c\u001f\u007f',
  'Ünïcödé — 日本語 😀 \u2028\u2029',
  '</script><b>',
  ' leading space',
  '#hash',
];

/**
 * Varied audit events of one organization for the export's equality checks (every actor type,
 * target / reason / request present and absent, trusted proxy on and off, instants with zero and
 * non-zero milliseconds, several events per instant, and {@link AWKWARD_TEXT} in every free-text
 * column), with the pseudonymous request facts the view must never show.
 *
 * @example
 * for (const event of testVariedAuditEvents(organizationId, Date.parse('2026-07-01T00:00:00Z'))) await store.appendAuditEvent(event);
 */
export function testVariedAuditEvents(organizationId: string, base: number): AuditEventInput[] {
  const actors: AuditActor[] = [
    { type: 'user', userId: testUuidV7() },
    { type: 'service', serviceIdentityId: testUuidV7() },
    { type: 'anonymous' },
    { type: 'system' },
  ];
  const millis = [0, 1, 10, 100, 120, 291, 999];
  const outcomes = ['succeeded', 'denied', 'failed'] as const;
  return Array.from({ length: 3 * AWKWARD_TEXT.length }, (_, i) => {
    const text = AWKWARD_TEXT[i % AWKWARD_TEXT.length]!;
    const other = AWKWARD_TEXT[(i * 7 + 3) % AWKWARD_TEXT.length]!;
    // Two events per instant (ties ordered by id); whole seconds and fractions alternate.
    const at = new Date(base - Math.floor(i / 2) * 1000 + millis[Math.floor(i / 2) % millis.length]!);
    return {
      id: testUuidV7(at),
      actor: actors[i % actors.length]!,
      organizationId,
      action: i % 5 === 0 ? 'membership.changed' : 'session.created',
      target: i % 3 === 0 ? null : { type: i % 2 === 0 ? 'membership' : 'user', id: other },
      outcome: outcomes[i % outcomes.length]!,
      reasonCode: i % 4 === 1 ? null : text,
      request:
        i % 6 === 5
          ? null
          : {
              requestId: `req_${testBase64Url(16)}`,
              method: i % 2 === 0 ? 'POST' : other.slice(0, 32),
              path: `/identity/v1/${text}`,
              userAgent: `v1.${testBase64Url()}`,
              clientIpDigest: `v1.${testBase64Url()}`,
              trustedProxy: i % 4 === 0,
            },
      occurredAt: at,
    };
  });
}
