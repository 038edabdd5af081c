import { CLEARS_CEREMONY } from '../../passkeys/ceremony.js';
import { clearedSessionCookie } from '../../sessions/session-cookie.js';
import { respondIdentityJson } from '../identity-response.js';
import { passkeyView } from '../identity-views.js';
import { fields, route, type IdentityRouteTable, type RouteCall } from './route-table.js';
import { respondSessionCreated } from './session-grant.js';

const PASSKEYS = '/identity/v1/passkeys';
const RENAME_BODY = fields({ name: { kind: 'text', min: 1, max: 200 } });
/** The finish bodies are decoded by the ceremony itself (a bad body still ends the ceremony). */
const strictJson = (json: unknown): unknown => json;

/**
 * ANON routes 4–5 admit anonymous and full-session callers (a valid session of the same user is
 * rotated by the finish); a restricted session may only register or log out (identity-http §2
 * stage 7, identity-model §5.1), so it is answered 401 `authentication_required` there.
 */
const SIGN_IN_CALLERS = { anonymous: true, user: true } as const;

const finishAssertion = (mode: 'sign_in' | 'step_up') => async (call: RouteCall<unknown>) => {
  const json = await call.body();
  const { issued, session } = await call.services.passkeys.finishAssertion(call, call.context, mode, json);
  respondSessionCreated(call.kernel, call.exchange, issued, session);
};

/**
 * Passkey routes 2–7 and 13–15 (identity-http §4.1, §4.3): registration (a restricted session's
 * finish is a recovery enrollment that clears the session cookie and returns ten replacement
 * recovery codes once), username-free sign-in, step-up, and the caller's passkey list, rename and
 * revoke. Every finish route clears the ceremony cookie first, whatever the outcome.
 */
export const PASSKEY_ROUTES: IdentityRouteTable = [
  route({
    method: 'POST',
    path: `${PASSKEYS}/registration/start`,
    callers: { user: true, restricted: true },
    handle: async (call) => {
      const started = await call.services.passkeys.startRegistration(call.caller());
      respondIdentityJson(call.exchange, 200, started);
    },
  }),
  route({
    method: 'POST',
    path: `${PASSKEYS}/registration/finish`,
    callers: { user: true, restricted: true },
    before: [CLEARS_CEREMONY],
    body: strictJson,
    handle: async (call) => {
      const caller = call.caller();
      const finished = await call.services.passkeys.finishRegistration(caller, await call.body());
      if (finished.replacementRecoveryCodes === undefined)
        return respondIdentityJson(call.exchange, 200, { passkey: passkeyView(finished.credential) });
      call.exchange.appendHeader('set-cookie', clearedSessionCookie(call.kernel.config.sessionCookie));
      respondIdentityJson(call.exchange, 200, {
        passkey: passkeyView(finished.credential),
        replacementRecoveryCodes: finished.replacementRecoveryCodes,
      });
    },
  }),
  route({
    method: 'POST',
    path: `${PASSKEYS}/authentication/start`,
    callers: SIGN_IN_CALLERS,
    rateLimit: { policy: 'passkey_auth_start', key: 'peer' },
    handle: async (call) => respondIdentityJson(call.exchange, 200, await call.services.passkeys.startSignIn(call)),
  }),
  route({
    method: 'POST',
    path: `${PASSKEYS}/authentication/finish`,
    callers: SIGN_IN_CALLERS,
    rateLimit: { policy: 'passkey_auth_finish', key: 'peer' },
    before: [CLEARS_CEREMONY],
    body: strictJson,
    handle: finishAssertion('sign_in'),
  }),
  route({
    method: 'POST',
    path: `${PASSKEYS}/step-up/start`,
    callers: { user: true },
    handle: async (call) =>
      respondIdentityJson(call.exchange, 200, await call.services.passkeys.startStepUp(call.caller())),
  }),
  route({
    method: 'POST',
    path: `${PASSKEYS}/step-up/finish`,
    callers: { user: true },
    before: [CLEARS_CEREMONY],
    body: strictJson,
    handle: finishAssertion('step_up'),
  }),
  route({
    method: 'GET',
    path: PASSKEYS,
    callers: { user: true },
    handle: async (call) => {
      const credentials = await call.services.passkeys.list(call.caller().context);
      respondIdentityJson(call.exchange, 200, credentials.map(passkeyView));
    },
  }),
  route({
    method: 'PATCH',
    path: `${PASSKEYS}/:credentialId`,
    callers: { user: true },
    body: RENAME_BODY,
    handle: async (call) => {
      const caller = call.caller();
      const credentialId = call.uuid('credentialId');
      const { name } = await call.body();
      respondIdentityJson(
        call.exchange,
        200,
        passkeyView(await call.services.passkeys.rename(caller, credentialId, name)),
      );
    },
  }),
  route({
    method: 'DELETE',
    path: `${PASSKEYS}/:credentialId`,
    callers: { user: true },
    handle: async (call) => {
      const credentialId = call.uuid('credentialId');
      respondIdentityJson(
        call.exchange,
        200,
        passkeyView(await call.services.passkeys.revoke(call.caller(), credentialId)),
      );
    },
  }),
];
