import { describe, expect, it } from '@jest/globals';
import { createTestExchange } from '@tessera/web';
import { CoreConfigError } from './core.errors.js';
import { createCorePrincipal } from './principal.js';
import { getCoreSession, SessionCookieAuthenticationProvider } from './session-cookie-authentication.provider.js';
import type { CoreSession, CoreSessionStore } from './session-store.js';
import { generateCoreSessionToken } from './session-token.js';

const principal = createCorePrincipal({ kind: 'basic', id: 'ops', roles: ['operator'] });
const TOKEN = generateCoreSessionToken();

/** Records the tokens looked up; knows exactly one session. */
function recordingStore(): { store: CoreSessionStore; asked: string[] } {
  const asked: string[] = [];
  const session: CoreSession = {
    id: '0b4c8f52-3f7e-4d0a-9a51-1d7c9e2f6a10',
    principal,
    createdAt: new Date(0),
    expiresAt: new Date(1e13),
    lastSeenAt: new Date(0),
  };
  const findByToken = async (token: string) => {
    asked.push(token);
    return token === TOKEN ? session : null;
  };
  return { store: { findByToken } as unknown as CoreSessionStore, asked };
}

const cookies = (...values: string[]) => createTestExchange({ headers: { cookie: values } }).exchange;

describe('SessionCookieAuthenticationProvider', () => {
  it('authenticates the session named by its cookie among other cookies', async () => {
    const { store } = recordingStore();
    const provider = new SessionCookieAuthenticationProvider({ store });
    const exchange = cookies(`theme=dark; __Host-tessera_core_session=${TOKEN}; lang=en`);
    expect(await provider.authenticate(exchange)).toBe(principal);
    expect(getCoreSession(exchange)?.id).toBe('0b4c8f52-3f7e-4d0a-9a51-1d7c9e2f6a10');
  });

  it('does not look up a missing, repeated, malformed or differently named cookie', async () => {
    const { store, asked } = recordingStore();
    const provider = new SessionCookieAuthenticationProvider({ store });
    expect(await provider.authenticate(cookies())).toBeNull();
    expect(
      await provider.authenticate(
        cookies(`__Host-tessera_core_session=${TOKEN}; __Host-tessera_core_session=${TOKEN}`),
      ),
    ).toBeNull();
    expect(
      await provider.authenticate(
        cookies(`__Host-tessera_core_session=${TOKEN}`, `__Host-tessera_core_session=${TOKEN}`),
      ),
    ).toBeNull();
    expect(await provider.authenticate(cookies('__Host-tessera_core_session=not-a-token'))).toBeNull();
    expect(await provider.authenticate(cookies(`__Host-tessera_session=${TOKEN}`))).toBeNull();
    expect(await provider.authenticate(cookies(`x__Host-tessera_core_session=${TOKEN}`))).toBeNull();
    expect(asked).toEqual([]);
  });

  it('answers null for a well-formed token the store does not know', async () => {
    const { store, asked } = recordingStore();
    const other = generateCoreSessionToken();
    expect(
      await new SessionCookieAuthenticationProvider({ store }).authenticate(
        cookies(`__Host-tessera_core_session=${other}`),
      ),
    ).toBeNull();
    expect(asked).toEqual([other]);
  });

  it('writes HttpOnly, Secure, SameSite=Strict cookies whose Max-Age ends with the session', () => {
    const { store } = recordingStore();
    const now = new Date('2030-01-01T00:00:00Z');
    const provider = new SessionCookieAuthenticationProvider({ store, cookieName: 'ops_session', clock: () => now });
    const grant = { id: 'x', token: TOKEN, expiresAt: new Date(now.getTime() + 3600_000) };
    expect(provider.sessionCookie(grant)).toBe(
      `ops_session=${TOKEN}; Path=/; Max-Age=3600; HttpOnly; Secure; SameSite=Strict`,
    );
    expect(provider.clearingCookie()).toBe('ops_session=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict');
  });

  it.each(['__Host-tessera_session', '__host-TESSERA_csrf', 'bad name', ''])(
    'refuses the cookie name %p',
    (cookieName) => {
      expect(() => new SessionCookieAuthenticationProvider({ store: recordingStore().store, cookieName })).toThrow(
        CoreConfigError,
      );
    },
  );

  it('refuses a missing store', () => {
    expect(() => new SessionCookieAuthenticationProvider({} as never)).toThrow(CoreConfigError);
  });
});
