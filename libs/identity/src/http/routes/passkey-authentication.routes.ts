import type { Router } from '@tessera/web';
import { generateAuthenticationOptions } from '@simplewebauthn/server';
import { IdentityError } from '../../errors/identity.errors.js';
import type { IdentityKernel } from '../../identity-kernel.js';
import { CLEARS_CEREMONY, startCeremony } from '../../passkeys/ceremony.js';
import { respondIdentityJson } from '../identity-response.js';
import { callerGate, rateLimited, requestTime, requireContext, storeRead } from '../route-kit.js';
import { finishAssertion, SIGN_IN_SOURCE, stepUpSource } from './passkey-finish.js';

/**
 * ANON routes admit anonymous and full-session callers (a valid session of the same user is
 * rotated by the finish); a restricted session may only register or log out (identity-http §2
 * stage 7, identity-model §5.1), so it is answered 401 `authentication_required` here.
 */
const ANON_OR_USER = callerGate({ anonymous: true, user: true });
const USER = callerGate({ user: true });

/**
 * Routes 4–7 (identity-http §4.1, identity-model §5.2–5.3): username-free passkey sign-in with an
 * empty `allowCredentials`, and step-up over the user's active passkeys that rotates the current
 * session into assurance `step_up`.
 *
 * @example
 * passkeyAuthenticationRoutes(kernel, router);
 */
export function passkeyAuthenticationRoutes(kernel: IdentityKernel, router: Router): Router {
  const options = async (challenge: Uint8Array, allowCredentials: { id: string; transports: string[] }[]) => ({
    ...(await generateAuthenticationOptions({
      rpID: kernel.config.rp.id,
      challenge: Uint8Array.from(challenge),
      timeout: kernel.config.lifetimes.challengeSeconds * 1000,
      allowCredentials: allowCredentials.map((credential) => ({
        id: credential.id,
        transports: credential.transports as AuthenticatorTransport[],
      })),
      userVerification: 'required',
    })),
    hints: [],
  });

  router.post(
    '/identity/v1/passkeys/authentication/start',
    ANON_OR_USER,
    rateLimited(kernel, 'passkey_auth_start', 'peer'),
    async (exchange) => {
      const at = requestTime(exchange);
      const { ceremonyId, challenge } = await startCeremony(kernel, exchange, at, {
        purpose: 'webauthn_authentication',
        userId: null,
        source: SIGN_IN_SOURCE,
      });
      respondIdentityJson(exchange, 200, { ceremonyId, publicKey: await options(challenge, []) });
    },
  );

  router.post(
    '/identity/v1/passkeys/authentication/finish',
    CLEARS_CEREMONY,
    ANON_OR_USER,
    rateLimited(kernel, 'passkey_auth_finish', 'peer'),
    (exchange) => finishAssertion(kernel, exchange, 'sign_in'),
  );

  router.post('/identity/v1/passkeys/step-up/start', USER, async (exchange) => {
    const at = requestTime(exchange);
    const context = requireContext(exchange);
    const session = context.session;
    if (session === undefined) throw new IdentityError('authentication_required');
    const credentials = await storeRead(() => kernel.store.listCredentialsForUser(context.principal.id));
    const active = credentials.filter((credential) => credential.state === 'active');
    if (active.length === 0) throw new IdentityError('invalid_credentials');
    const { ceremonyId, challenge } = await startCeremony(kernel, exchange, at, {
      purpose: 'step_up',
      userId: context.principal.id,
      source: stepUpSource(session),
    });
    const allow = active.map((credential) => ({ id: credential.webAuthnId, transports: [...credential.transports] }));
    respondIdentityJson(exchange, 200, { ceremonyId, publicKey: await options(challenge, allow) });
  });

  router.post('/identity/v1/passkeys/step-up/finish', CLEARS_CEREMONY, USER, (exchange) =>
    finishAssertion(kernel, exchange, 'step_up'),
  );
  return router;
}

type AuthenticatorTransport = 'usb' | 'nfc' | 'ble' | 'internal' | 'hybrid' | 'smart-card' | 'cable';
