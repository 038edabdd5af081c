import { respondIdentityJson } from '../identity-response.js';
import { route, type IdentityRouteTable } from './route-table.js';
import { ref } from './route-doc.js';

const BASE = '/identity/v1';

/**
 * Route 47: the browser-safe client configuration (identity-http §11). No secret material:
 * no peppers, keys, references, tokens, digests or database settings. Anonymous callers and full
 * sessions (a GET route also answers HEAD).
 */
export const CLIENT_CONFIG_ROUTES: IdentityRouteTable = [
  route({
    method: 'GET',
    path: `${BASE}/client-config`,
    callers: { anonymous: true, user: true },
    doc: {
      tag: 'client',
      summary: 'Browser-safe client configuration',
      responses: { 200: { description: 'Routes, CSRF names and features for the browser', body: ref('ClientConfig') } },
      errors: [],
    },
    handle: async ({ exchange, kernel }) => {
      const config = kernel.config;
      const bootstrap =
        config.bootstrap.lifecycle === 'pending' &&
        kernel.keys.bootstrapSecret !== undefined &&
        (await kernel.store.isEmpty());
      respondIdentityJson(exchange, 200, {
        version: 1,
        rpId: config.rp.id,
        identityBase: BASE,
        csrf: { header: 'X-CSRF-Token', sessionStorageName: 'tessera.identity.csrf.v1' },
        routes: {
          me: `${BASE}/me`,
          sessions: `${BASE}/sessions`,
          logout: `${BASE}/logout`,
          registrationStart: `${BASE}/passkeys/registration/start`,
          registrationFinish: `${BASE}/passkeys/registration/finish`,
          authenticationStart: `${BASE}/passkeys/authentication/start`,
          authenticationFinish: `${BASE}/passkeys/authentication/finish`,
          stepUpStart: `${BASE}/passkeys/step-up/start`,
          stepUpFinish: `${BASE}/passkeys/step-up/finish`,
          passkeys: `${BASE}/passkeys`,
          organizations: `${BASE}/organizations`,
          recoveryCodesReplace: `${BASE}/recovery/codes/replace`,
          recoveryCodesUse: `${BASE}/recovery/codes/use`,
          invitationAccept: `${BASE}/invitations/accept`,
          invitationEnroll: `${BASE}/invitations/enroll`,
          deviceInspect: `${BASE}/device`,
          deviceApprove: `${BASE}/device/approve`,
          deviceDeny: `${BASE}/device/deny`,
          bootstrap: `${BASE}/bootstrap`,
        },
        device: { verificationUri: `${config.publicBaseUrl}/device` },
        // Administrative recovery is on exactly when both integrations are configured (routes 18–20
        // answer 404 otherwise); federation sign-in is always served (providers come from code or
        // organizations); SCIM is on unless `scim.enabled` is false.
        features: {
          bootstrap,
          administrativeRecovery: kernel.adminRecovery !== undefined,
          federation: true,
          scim: kernel.scim.enabled,
        },
      });
    },
  }),
];
