import { CLEARS_CEREMONY } from '../../passkeys/ceremony.js';
import { clearedSessionCookie } from '../../sessions/session-cookie.js';
import { respondIdentityJson } from '../identity-response.js';
import { passkeyView } from '../identity-views.js';
import { fields, route, type IdentityRouteTable, type RouteCall } from './route-table.js';
import { uuidV7 } from '../openapi/openapi-fields.js';
import {
  arrayOf,
  CLEARS_CEREMONY_COOKIE,
  CLEARS_SESSION_COOKIE,
  ref,
  SETS_CEREMONY_COOKIE,
  SETS_SESSION_COOKIE,
  type JsonSchema,
} from './route-doc.js';
import { respondSessionCreated } from './session-grant.js';

const PASSKEYS = '/identity/v1/passkeys';
const RENAME_BODY = fields({ name: { kind: 'text', min: 1, max: 200 } });
/** The finish bodies are decoded by the ceremony itself (a bad body still ends the ceremony). */
const strictJson = (json: unknown): unknown => json;
const TEXT_200: JsonSchema = { type: 'string', minLength: 1, maxLength: 200 };
const closed = (required: string[], properties: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  required,
  properties,
});
/** The body of the assertion finishes (routes 5, 7), decoded by the ceremony (identity-http §4.1). */
const ASSERTION_BODY = closed(['ceremonyId', 'credential'], {
  ceremonyId: uuidV7(),
  credential: ref('AuthenticationCredential'),
  deviceLabel: TEXT_200,
  devicePlatform: TEXT_200,
});
const FINISH_COOKIES = [CLEARS_CEREMONY_COOKIE, SETS_SESSION_COOKIE];

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
    doc: {
      tag: 'passkeys',
      summary: 'Start a passkey registration',
      description:
        'A restricted session (bootstrap, invitation, recovery) enrols its first passkey; a full session needs a recent passkey (step-up) or, for a federated session, FED1 (identity-http §4.3). No request body.',
      responses: {
        200: { description: 'WebAuthn creation options', body: ref('CeremonyStart'), cookies: [SETS_CEREMONY_COOKIE] },
      },
      errors: ['step_up_required', 'registration_not_allowed', 'not_found'],
    },
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
    doc: {
      tag: 'passkeys',
      summary: 'Finish a passkey registration',
      description:
        'A restricted session’s finish completes its enrollment: it gets ten replacement recovery codes once, and that session (and every other) is revoked and its cookie cleared.',
      requestBody: closed(['ceremonyId', 'credentialName', 'credential'], {
        ceremonyId: uuidV7(),
        credentialName: TEXT_200,
        credential: ref('RegistrationCredential'),
      }),
      responses: {
        200: {
          description: 'The new passkey',
          body: ref('PasskeyRegistered'),
          cookies: [CLEARS_CEREMONY_COOKIE, { ...CLEARS_SESSION_COOKIE, always: false }],
        },
      },
      errors: ['challenge_invalid', 'step_up_required', 'registration_not_allowed', 'not_found', 'conflict'],
    },
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
    doc: {
      tag: 'passkeys',
      summary: 'Start a username-free passkey sign-in',
      description: 'No request body.',
      responses: {
        200: { description: 'WebAuthn request options', body: ref('CeremonyStart'), cookies: [SETS_CEREMONY_COOKIE] },
      },
      errors: [],
    },
    rateLimit: { policy: 'passkey_auth_start', key: 'peer' },
    handle: async (call) => respondIdentityJson(call.exchange, 200, await call.services.passkeys.startSignIn(call)),
  }),
  route({
    method: 'POST',
    path: `${PASSKEYS}/authentication/finish`,
    callers: SIGN_IN_CALLERS,
    rateLimit: { policy: 'passkey_auth_finish', key: 'peer' },
    signIn: 'passkey',
    before: [CLEARS_CEREMONY],
    body: strictJson,
    doc: {
      tag: 'passkeys',
      summary: 'Finish a passkey sign-in',
      description: 'A valid session of the same user is rotated into the new one.',
      requestBody: ASSERTION_BODY,
      responses: { 200: { description: 'Signed in', body: ref('SessionCreated'), cookies: FINISH_COOKIES } },
      errors: ['challenge_invalid', 'conflict'],
    },
    handle: finishAssertion('sign_in'),
  }),
  route({
    method: 'POST',
    path: `${PASSKEYS}/step-up/start`,
    callers: { user: true },
    doc: {
      tag: 'passkeys',
      summary: 'Start a step-up (re-verify with one of the caller’s passkeys)',
      description: 'No request body. 401 `invalid_credentials` when the user has no active passkey.',
      responses: {
        200: { description: 'WebAuthn request options', body: ref('CeremonyStart'), cookies: [SETS_CEREMONY_COOKIE] },
      },
      errors: [],
    },
    handle: async (call) =>
      respondIdentityJson(call.exchange, 200, await call.services.passkeys.startStepUp(call.caller())),
  }),
  route({
    method: 'POST',
    path: `${PASSKEYS}/step-up/finish`,
    callers: { user: true },
    before: [CLEARS_CEREMONY],
    body: strictJson,
    doc: {
      tag: 'passkeys',
      summary: 'Finish a step-up',
      description: 'The current session is rotated into one with assurance `step_up`.',
      requestBody: ASSERTION_BODY,
      responses: { 200: { description: 'Stepped up', body: ref('SessionCreated'), cookies: FINISH_COOKIES } },
      errors: ['challenge_invalid', 'conflict'],
    },
    handle: finishAssertion('step_up'),
  }),
  route({
    method: 'GET',
    path: PASSKEYS,
    callers: { user: true },
    doc: {
      tag: 'passkeys',
      summary: 'The caller’s passkeys',
      responses: { 200: { description: 'The passkeys, oldest first', body: arrayOf(ref('Passkey')) } },
      errors: [],
    },
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
    doc: {
      tag: 'passkeys',
      summary: 'Rename one of the caller’s passkeys',
      responses: { 200: { description: 'The renamed passkey', body: ref('Passkey') } },
      errors: ['not_found', 'conflict'],
    },
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
    doc: {
      tag: 'passkeys',
      summary: 'Revoke one of the caller’s passkeys',
      description: 'Needs a recent passkey verification (step-up).',
      responses: { 200: { description: 'The passkey (state `revoked`)', body: ref('Passkey') } },
      errors: ['not_found', 'step_up_required', 'conflict'],
    },
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
