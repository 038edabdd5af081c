import { describe, it, expect } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { FrozenClock } from '../runtime/frozen.clock.js';
import { decodeBase64Url } from '../tokens/base64url.codec.js';
import { digestCsrfToken, digestSessionSecret, parseSessionToken } from '../tokens/secret-token.format.js';
import { DEFAULT_SESSION_COOKIE } from '../config/identity-config.defaults.js';
import { clearedSessionCookie, cookieValues, sessionCookie } from './session-cookie.js';
import { issueSession } from './session-issuer.js';
import type { SessionPepperRing } from './session-keys.js';

const random = { bytes: (n: number) => new Uint8Array(randomBytes(n)) };
const pepper = { version: 'v2', key: randomBytes(32) };
const ring: SessionPepperRing = { current: pepper, byVersion: (v) => (v === 'v2' ? pepper : undefined) };
const lifetimes = { idleSeconds: 86_400, absoluteSeconds: 30 * 86_400 };

describe('issueSession', () => {
  const clock = new FrozenClock('2026-07-14T08:15:30Z');

  it('mints an 80-character token whose selector is the session id and stores only digests', () => {
    const issued = issueSession({ clock, random }, ring, {
      userId: 'u',
      assurance: 'recovery',
      authenticationMethod: 'bootstrap',
      authenticatedAt: clock.now(),
      lifetimes: { idleSeconds: 900, absoluteSeconds: 900 },
    });
    expect(issued.cookieToken).toHaveLength(80);
    const parsed = parseSessionToken(issued.cookieToken)!;
    expect(parsed.selector).toBe(issued.session.id);
    expect(issued.session.familyId).toBe(issued.session.id);
    expect(issued.session.tokenDigest).toEqual({
      algorithm: 'hmac-sha256',
      encoded: Buffer.from(digestSessionSecret(pepper.key, parsed.secret)).toString('base64url'),
      keyVersion: 'v2',
    });
    const csrfBytes = decodeBase64Url(issued.csrfToken, { minBytes: 32, maxBytes: 32 })!;
    expect(issued.session.csrfDigest.encoded).toBe(
      Buffer.from(digestCsrfToken(pepper.key, csrfBytes)).toString('base64url'),
    );
    expect(JSON.stringify(issued.session)).not.toContain(issued.cookieToken.split('.')[1]);
    expect(issued.session.idleExpiresAt.toISOString()).toBe('2026-07-14T08:30:30.000Z');
    expect(issued.session.absoluteExpiresAt.toISOString()).toBe('2026-07-14T08:30:30.000Z');
  });

  it('rotates within the family without ever extending the absolute expiry', () => {
    const absoluteExpiresAt = new Date('2026-07-20T00:00:00Z');
    const issued = issueSession({ clock, random }, ring, {
      userId: 'u',
      assurance: 'step_up',
      authenticationMethod: 'passkey',
      authenticatedAt: clock.now(),
      lifetimes,
      predecessor: { familyId: 'family', rotationCounter: 2, absoluteExpiresAt },
    });
    expect(issued.session.familyId).toBe('family');
    expect(issued.session.rotationCounter).toBe(3);
    expect(issued.session.absoluteExpiresAt).toEqual(absoluteExpiresAt);
    expect(issued.session.idleExpiresAt.getTime()).toBe(clock.now().getTime() + 86_400_000);
  });
});

describe('session cookie', () => {
  it('has the exact attributes of identity-http §9.1 and clears with Max-Age=0', () => {
    expect(sessionCookie(DEFAULT_SESSION_COOKIE, 'tok')).toBe(
      '__Host-tessera_session=tok; Path=/; Secure; HttpOnly; SameSite=Lax',
    );
    expect(clearedSessionCookie(DEFAULT_SESSION_COOKIE)).toBe(
      '__Host-tessera_session=; Max-Age=0; Path=/; Secure; HttpOnly; SameSite=Lax',
    );
  });

  it('finds every value of the cookie across Cookie headers', () => {
    expect(
      cookieValues(['a=1; __Host-tessera_session=x', '__Host-tessera_session=y'], '__Host-tessera_session'),
    ).toEqual(['x', 'y']);
    expect(cookieValues(['other=1'], '__Host-tessera_session')).toEqual([]);
  });
});
