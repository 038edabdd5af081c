import { arrayOf, type JsonSchema } from '../routes/route-doc.js';
import { object } from './openapi-fields.js';

const ROLE: JsonSchema = { enum: ['admin', 'publisher', 'viewer'] };
const MATCH_TEXT: JsonSchema = { type: 'string', minLength: 1, maxLength: 1024 };

/** One group-to-role rule (request and view share it). */
export const SCIM_GROUP_ROLE_SCHEMA: JsonSchema = object(['match', 'role'], {
  match: {
    oneOf: [
      object(['displayName'], { displayName: MATCH_TEXT }, 'A group whose displayName equals this (case-insensitive).'),
      object(['externalId'], { externalId: MATCH_TEXT }, 'A group whose externalId equals this (exact).'),
    ],
  },
  role: ROLE,
});

/**
 * The SCIM connection schemas of the OpenAPI document (the management routes; the `/scim/v2`
 * protocol itself is described by its own discovery endpoints, RFC 7644 §4).
 *
 * @example
 * const schemas = { ...componentSchemas(), ...scimComponentSchemas() };
 */
export function scimComponentSchemas(): Record<string, JsonSchema> {
  return {
    ScimConnection: object(
      [
        'id',
        'organizationId',
        'providerName',
        'groupRoles',
        'state',
        'baseUrl',
        'tokenIssuedAt',
        'createdAt',
        'updatedAt',
        'revokedAt',
      ],
      {
        id: { $ref: '#/components/schemas/Uuid' },
        organizationId: { $ref: '#/components/schemas/Uuid' },
        providerName: { type: 'string', pattern: '^[a-z0-9_-]{1,64}$' },
        groupRoles: arrayOf(SCIM_GROUP_ROLE_SCHEMA),
        state: { enum: ['active', 'revoked'] },
        baseUrl: { type: 'string', description: 'The SCIM base URL to paste into the identity provider.' },
        tokenIssuedAt: { $ref: '#/components/schemas/Timestamp' },
        createdAt: { $ref: '#/components/schemas/Timestamp' },
        updatedAt: { $ref: '#/components/schemas/Timestamp' },
        revokedAt: { oneOf: [{ $ref: '#/components/schemas/Timestamp' }, { type: 'null' }] },
      },
      'A SCIM connection: never its token or a digest.',
    ),
    IssuedScimConnection: object(['connection', 'token'], {
      connection: { $ref: '#/components/schemas/ScimConnection' },
      token: {
        type: 'string',
        pattern: '^[0-9a-f-]{36}\\.[A-Za-z0-9_-]{43}$',
        description: 'The bearer token for the identity provider, shown once.',
      },
    }),
  };
}
