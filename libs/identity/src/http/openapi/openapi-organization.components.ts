import { arrayOf, ref, type JsonSchema } from '../routes/route-doc.js';
import { object } from './openapi-fields.js';
import { TOKEN_SHOWN_ONCE, VERSION } from './openapi-values.js';
import { federationComponentSchemas } from './openapi-federation.components.js';
import { scimComponentSchemas } from './openapi-scim.components.js';

/**
 * Component schemas of organizations, memberships, invitations, service identities, federation
 * providers, SCIM connections and the audit log (identity-http §4.5, §6, §7), built from `identity-views.ts`, `service-identity.views.ts`
 * and `audit-event.view.ts`.
 */
export function organizationComponentSchemas(): Record<string, JsonSchema> {
  return {
    OrganizationSummary: object(['id', 'name', 'slug', 'role'], {
      id: ref('Uuid'),
      name: { type: 'string' },
      slug: { type: 'string' },
      role: {
        description: 'The caller’s role there; `device` for a device access token.',
        anyOf: [ref('Role'), { const: 'device' }],
      },
    }),
    Organization: object(['id', 'name', 'slug', 'state', 'version', 'createdAt', 'updatedAt'], {
      id: ref('Uuid'),
      name: { type: 'string' },
      slug: { type: 'string' },
      state: { type: 'string', enum: ['active', 'suspended', 'deleted'] },
      version: VERSION,
      createdAt: ref('Timestamp'),
      updatedAt: ref('Timestamp'),
      deletedAt: ref('Timestamp'),
    }),
    Membership: object(['id', 'organizationId', 'userId', 'role', 'state', 'version', 'createdAt', 'updatedAt'], {
      id: ref('Uuid'),
      organizationId: ref('Uuid'),
      userId: ref('Uuid'),
      role: ref('Role'),
      state: { type: 'string', enum: ['active', 'suspended', 'removed'] },
      version: VERSION,
      createdAt: ref('Timestamp'),
      updatedAt: ref('Timestamp'),
      removedAt: ref('Timestamp'),
      user: object(
        ['id', 'displayName'],
        { id: ref('Uuid'), displayName: { type: 'string' }, primaryEmail: { type: 'string' } },
        'Who holds the membership (routes 26–28).',
      ),
    }),
    Invitation: object(
      ['id', 'organizationId', 'email', 'role', 'state', 'createdAt', 'expiresAt'],
      {
        id: ref('Uuid'),
        organizationId: ref('Uuid'),
        email: { type: 'string' },
        role: ref('Role'),
        state: { type: 'string', enum: ['pending', 'accepted', 'revoked', 'expired'] },
        createdAt: ref('Timestamp'),
        expiresAt: ref('Timestamp'),
        acceptedAt: ref('Timestamp'),
        revokedAt: ref('Timestamp'),
      },
      'InvitationView: never the token digest.',
    ),
    InvitationCreated: object(['invitation'], {
      invitation: ref('Invitation'),
      delivered: {
        type: 'boolean',
        const: true,
        description: 'Present when `notificationSink.deliverInvitation` delivered the enrolment link.',
      },
      token: {
        ...TOKEN_SHOWN_ONCE,
        description: 'Shown once. Absent when delivered, unless `invitations.returnTokenWithSink`.',
      },
    }),
    InvitationPreview: object(['organizationName', 'role', 'inviterDisplayName', 'expiresAt'], {
      organizationName: { type: 'string' },
      role: ref('Role'),
      inviterDisplayName: { type: ['string', 'null'], description: '`null` for a system-issued invitation.' },
      expiresAt: ref('Timestamp'),
    }),
    ServiceIdentity: object(
      ['id', 'organizationId', 'name', 'capabilities', 'state', 'version', 'createdAt', 'updatedAt'],
      {
        id: ref('Uuid'),
        organizationId: ref('Uuid'),
        name: { type: 'string' },
        description: { type: 'string' },
        capabilities: arrayOf(ref('Capability')),
        state: { type: 'string', enum: ['active', 'suspended', 'revoked'] },
        version: VERSION,
        createdAt: ref('Timestamp'),
        updatedAt: ref('Timestamp'),
        revokedAt: ref('Timestamp'),
      },
    ),
    ServiceCredential: object(
      ['id', 'serviceIdentityId', 'publicPrefix', 'capabilities', 'state', 'createdAt', 'expiresAt'],
      {
        id: ref('Uuid'),
        serviceIdentityId: ref('Uuid'),
        publicPrefix: { type: 'string' },
        capabilities: arrayOf(ref('Capability')),
        state: { type: 'string', enum: ['active', 'rotated', 'revoked', 'expired'] },
        createdAt: ref('Timestamp'),
        expiresAt: ref('Timestamp'),
        lastUsedAt: ref('Timestamp'),
        rotatedAt: ref('Timestamp'),
        revokedAt: ref('Timestamp'),
      },
      'CredentialView: never the secret or its digest; `expired` is computed at the request time.',
    ),
    ServiceIdentityCreated: object(['identity', 'credential', 'token'], {
      identity: ref('ServiceIdentity'),
      credential: ref('ServiceCredential'),
      token: { ...TOKEN_SHOWN_ONCE, description: 'The bearer credential; shown once.' },
    }),
    ServiceCredentialIssued: object(['credential', 'token'], {
      credential: ref('ServiceCredential'),
      token: { ...TOKEN_SHOWN_ONCE, description: 'The bearer credential; shown once.' },
    }),
    ...federationComponentSchemas(),
    ...scimComponentSchemas(),
    AuditEvent: object(
      ['id', 'actor', 'organizationId', 'action', 'outcome', 'occurredAt'],
      {
        id: ref('Uuid'),
        actor: {
          oneOf: [
            object(['type'], { type: { enum: ['anonymous', 'system'] } }),
            object(['type', 'userId'], { type: { const: 'user' }, userId: ref('Uuid') }),
            object(['type', 'serviceIdentityId'], { type: { const: 'service' }, serviceIdentityId: ref('Uuid') }),
          ],
        },
        organizationId: ref('Uuid'),
        action: { type: 'string', pattern: '^[a-z_]+\\.[a-z_]+$' },
        target: object(['type', 'id'], { type: { type: 'string' }, id: { type: 'string' } }),
        outcome: { type: 'string', enum: ['succeeded', 'denied', 'failed'] },
        reasonCode: { type: 'string', minLength: 1, maxLength: 200 },
        request: object(['requestId', 'method', 'path', 'trustedProxy'], {
          requestId: { type: 'string' },
          method: { type: 'string' },
          path: { type: 'string' },
          trustedProxy: { type: 'boolean' },
        }),
        occurredAt: ref('Timestamp'),
      },
      'AuditEventView (identity-model §8.1): never the user-agent, client pseudonym, payloads or secrets.',
    ),
    AuditEventPage: object(['events'], {
      events: arrayOf(ref('AuditEvent')),
      nextCursor: { type: 'string', description: 'Pass back unchanged as `cursor` for the next, older page.' },
    }),
  };
}
