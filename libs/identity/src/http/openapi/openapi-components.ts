import { ref, arrayOf, type JsonSchema } from '../routes/route-doc.js';
import { IDENTITY_ERROR_CATALOGUE, type IdentityErrorCode } from '../../errors/identity.errors.js';
import { errorEnvelopes, errorSchema, oauthErrorBodies } from './openapi-errors.js';
import { object, uuidV7 } from './openapi-fields.js';
import { organizationComponentSchemas } from './openapi-organization.components.js';
import { ASSURANCE, CAPABILITY, CSRF_TOKEN, PRINCIPAL_ASSURANCE, ROLE, TIMESTAMP } from './openapi-values.js';

/**
 * The shared component schemas, built from the views the routes render (`identity-views.ts`,
 * `service-identity.views.ts`, `audit-event.view.ts`) and identity-http §4.5.
 */
export function componentSchemas(): Record<string, JsonSchema> {
  return {
    Uuid: uuidV7('Canonical lowercase UUIDv7'),
    Timestamp: TIMESTAMP,
    Role: ROLE,
    Capability: CAPABILITY,
    Me: object(['userId', 'displayName', 'assuranceLevel'], {
      userId: ref('Uuid'),
      displayName: { type: 'string' },
      assuranceLevel: PRINCIPAL_ASSURANCE,
    }),
    SessionCreated: object(
      ['userId', 'sessionId', 'assurance', 'authenticatedAt', 'idleExpiresAt', 'absoluteExpiresAt', 'csrfToken'],
      {
        userId: ref('Uuid'),
        sessionId: ref('Uuid'),
        assurance: ASSURANCE,
        authenticatedAt: ref('Timestamp'),
        idleExpiresAt: ref('Timestamp'),
        absoluteExpiresAt: ref('Timestamp'),
        csrfToken: CSRF_TOKEN,
      },
      'A new session: its secret travels only in the HttpOnly session cookie, the CSRF token only here.',
    ),
    EnrollmentCreated: object(
      [
        'userId',
        'organizationId',
        'membership',
        'sessionId',
        'assurance',
        'authenticatedAt',
        'idleExpiresAt',
        'absoluteExpiresAt',
        'csrfToken',
      ],
      {
        userId: ref('Uuid'),
        organizationId: ref('Uuid'),
        membership: ref('Membership'),
        sessionId: ref('Uuid'),
        assurance: { const: 'recovery' },
        authenticatedAt: ref('Timestamp'),
        idleExpiresAt: ref('Timestamp'),
        absoluteExpiresAt: ref('Timestamp'),
        csrfToken: CSRF_TOKEN,
      },
      'A new account with a 15-minute restricted session: register a passkey next.',
    ),
    BootstrapCreated: object(
      ['userId', 'organization', 'ownerMembership', 'sessionId', 'idleExpiresAt', 'absoluteExpiresAt', 'csrfToken'],
      {
        userId: ref('Uuid'),
        organization: ref('Organization'),
        ownerMembership: ref('Membership'),
        sessionId: ref('Uuid'),
        idleExpiresAt: ref('Timestamp'),
        absoluteExpiresAt: ref('Timestamp'),
        csrfToken: CSRF_TOKEN,
      },
      'The first owner and organization, with a restricted session: register a passkey next.',
    ),
    Session: object(
      [
        'id',
        'assurance',
        'authenticationMethod',
        'state',
        'authenticatedAt',
        'lastUsedAt',
        'idleExpiresAt',
        'absoluteExpiresAt',
        'current',
      ],
      {
        id: ref('Uuid'),
        label: { type: 'string' },
        platform: { type: 'string' },
        assurance: ASSURANCE,
        authenticationMethod: {
          type: 'string',
          enum: ['passkey', 'recovery_code', 'administrative_recovery', 'bootstrap', 'invitation', 'oidc', 'saml'],
        },
        state: { type: 'string', enum: ['active', 'rotated', 'revoked', 'expired'] },
        authenticatedAt: ref('Timestamp'),
        lastUsedAt: ref('Timestamp'),
        idleExpiresAt: ref('Timestamp'),
        absoluteExpiresAt: ref('Timestamp'),
        current: { type: 'boolean' },
      },
      'SessionView: `expired` is computed at the request time.',
    ),
    RevokedSessions: object(['revokedSessionIds', 'clearCurrentCookie'], {
      revokedSessionIds: arrayOf(ref('Uuid')),
      clearCurrentCookie: { type: 'boolean' },
    }),
    Ok: object(['ok'], { ok: { const: true } }),
    Passkey: object(
      ['id', 'name', 'transports', 'backupEligible', 'backedUp', 'state', 'createdAt'],
      {
        id: ref('Uuid'),
        name: { type: 'string' },
        transports: arrayOf({ type: 'string', enum: ['usb', 'nfc', 'ble', 'internal', 'hybrid', 'smart-card'] }),
        backupEligible: { type: 'boolean' },
        backedUp: { type: 'boolean' },
        state: { type: 'string', enum: ['active', 'suspended', 'suspected_clone', 'revoked'] },
        createdAt: ref('Timestamp'),
        lastUsedAt: ref('Timestamp'),
      },
      'PasskeyView: never the public key or the WebAuthn credential id.',
    ),
    CeremonyStart: object(
      ['ceremonyId', 'publicKey'],
      {
        ceremonyId: ref('Uuid'),
        publicKey: {
          type: 'object',
          required: ['challenge'],
          properties: { challenge: { type: 'string', pattern: '^[A-Za-z0-9_-]+$' }, timeout: { type: 'integer' } },
          description:
            'WebAuthn `PublicKeyCredentialCreationOptionsJSON` (registration) or `PublicKeyCredentialRequestOptionsJSON` (authentication), identity-http §4.6.',
        },
      },
      'Pass `publicKey` to `navigator.credentials.create/get` (e.g. with @simplewebauthn/browser), then call the finish route.',
    ),
    PasskeyRegistered: object(['passkey'], {
      passkey: ref('Passkey'),
      replacementRecoveryCodes: arrayOf(
        { type: 'string' },
        {
          minItems: 10,
          maxItems: 10,
          description: 'Only when a restricted session enrolled: ten new recovery codes, shown once.',
        },
      ),
    }),
    RegistrationCredential: webAuthnCredential(['clientDataJSON', 'attestationObject'], 'RegistrationResponseJSON'),
    AuthenticationCredential: webAuthnCredential(
      ['clientDataJSON', 'authenticatorData', 'signature'],
      'AuthenticationResponseJSON',
    ),
    RecoveryCodes: object(['generation', 'codes'], {
      generation: { type: 'integer', minimum: 0 },
      codes: arrayOf({ type: 'string' }, { minItems: 10, maxItems: 10, description: 'Shown once.' }),
    }),
    Ticket: object(
      ['id', 'userId', 'state', 'createdAt', 'expiresAt'],
      {
        id: ref('Uuid'),
        userId: ref('Uuid'),
        state: { type: 'string', enum: ['pending', 'consumed', 'failed', 'expired'] },
        createdAt: ref('Timestamp'),
        expiresAt: ref('Timestamp'),
      },
      'TicketView: the ticket token goes only to the notification sink.',
    ),
    ...organizationComponentSchemas(),
    ClientConfig: clientConfigSchema(),
    DeviceGrantView: object(
      ['id', 'clientName', 'requestedCapabilities', 'state', 'createdAt', 'expiresAt'],
      {
        id: ref('Uuid'),
        clientName: { type: 'string' },
        requestedCapabilities: arrayOf(ref('Capability')),
        state: { enum: ['pending', 'authorized', 'denied'] },
        createdAt: ref('Timestamp'),
        expiresAt: ref('Timestamp'),
      },
      'The confirmation screen of a device grant: who asks, for what, and until when.',
    ),
    DeviceAuthorization: object(
      ['device_code', 'user_code', 'verification_uri', 'expires_in', 'interval'],
      {
        device_code: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' },
        user_code: { type: 'string', pattern: '^[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}$' },
        verification_uri: { type: 'string', format: 'uri' },
        expires_in: { type: 'integer', minimum: 1 },
        interval: { type: 'integer', minimum: 5, maximum: 300 },
      },
      'RFC 8628 §3.2: the device code stays with the client; the user enters `user_code` at `verification_uri`.',
    ),
    DeviceTokenResponse: object(
      ['access_token', 'token_type', 'expires_in', 'refresh_token', 'scope'],
      {
        access_token: { type: 'string', pattern: '^[0-9a-f-]{36}\\.[A-Za-z0-9_-]{43}$' },
        token_type: { const: 'Bearer' },
        expires_in: { type: 'integer', minimum: 0, maximum: 900 },
        refresh_token: { type: 'string', pattern: '^[0-9a-f-]{36}\\.[A-Za-z0-9_-]{43}$' },
        scope: { type: 'string', description: 'The approved capabilities, sorted, space-joined.' },
      },
      'RFC 6749 §5.1: an access token for the family’s organization and scopes, and its rotating refresh token.',
    ),
    ...oauthErrorBodies(),
    Error: errorSchema(Object.keys(IDENTITY_ERROR_CATALOGUE) as IdentityErrorCode[]),
    ...errorEnvelopes(),
  };
}

/** A WebAuthn credential as `@simplewebauthn/browser` returns it (identity-http §4.6). */
function webAuthnCredential(responseFields: readonly string[], name: string): JsonSchema {
  const base64url: JsonSchema = { type: 'string', pattern: '^[A-Za-z0-9_-]*$' };
  return {
    type: 'object',
    required: ['id', 'rawId', 'type', 'response', 'clientExtensionResults'],
    properties: {
      id: base64url,
      rawId: base64url,
      type: { const: 'public-key' },
      response: {
        type: 'object',
        required: [...responseFields],
        properties: Object.fromEntries(responseFields.map((field) => [field, base64url])),
      },
      authenticatorAttachment: { type: 'string', enum: ['platform', 'cross-platform'] },
      clientExtensionResults: { type: 'object' },
    },
    description: `The \`${name}\` of the ceremony, strict unpadded base64url fields.`,
  };
}

function clientConfigSchema(): JsonSchema {
  const route: JsonSchema = { type: 'string', pattern: '^/identity/v1/' };
  return object(
    ['version', 'rpId', 'identityBase', 'csrf', 'routes', 'device', 'features'],
    {
      version: { const: 1 },
      rpId: { type: 'string' },
      identityBase: { const: '/identity/v1' },
      csrf: object(['header', 'sessionStorageName'], {
        header: { type: 'string' },
        sessionStorageName: { type: 'string' },
      }),
      routes: { type: 'object', additionalProperties: route },
      device: object(['verificationUri'], { verificationUri: { type: 'string', format: 'uri' } }),
      features: object(['bootstrap', 'administrativeRecovery', 'federation', 'scim'], {
        bootstrap: { type: 'boolean' },
        administrativeRecovery: { type: 'boolean' },
        federation: { type: 'boolean' },
        scim: { type: 'boolean' },
      }),
    },
    'Browser-safe client configuration (identity-http §11): no secret material.',
  );
}
