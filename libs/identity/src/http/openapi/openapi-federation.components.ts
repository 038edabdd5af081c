import { arrayOf, type JsonSchema } from '../routes/route-doc.js';
import { object } from './openapi-fields.js';

const PROVIDER_COMMON = [
  'providerId',
  'organizationId',
  'protocol',
  'displayName',
  'state',
  'jit',
  'source',
  'linkedIdentities',
  'startUrl',
  'signInPageUrl',
];
const PROVIDER_PROPERTIES = {
  providerId: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{0,62}$' },
  organizationId: { $ref: '#/components/schemas/Uuid' },
  displayName: { type: 'string' },
  state: { enum: ['enabled', 'disabled'] },
  jit: { type: 'boolean' },
  source: { enum: ['organization', 'static'], description: '`static`: declared in code, read-only here.' },
  linkedIdentities: { type: 'integer', minimum: 0 },
  startUrl: { type: 'string' },
  signInPageUrl: { type: 'string' },
  version: { type: 'integer', minimum: 0 },
  createdAt: { $ref: '#/components/schemas/Timestamp' },
  updatedAt: { $ref: '#/components/schemas/Timestamp' },
};

/**
 * The federation schemas of the OpenAPI document: the provider view of the management routes and
 * the sign-in option of the public provider list.
 *
 * @example
 * const schemas = { ...componentSchemas(), ...federationComponentSchemas() };
 */
export function federationComponentSchemas(): Record<string, JsonSchema> {
  return {
    FederationProvider: {
      oneOf: [
        object([...PROVIDER_COMMON, 'issuer', 'clientId', 'hasClientSecret', 'redirectUri'], {
          ...PROVIDER_PROPERTIES,
          protocol: { const: 'oidc' },
          issuer: { type: 'string' },
          clientId: { type: 'string' },
          hasClientSecret: { type: 'boolean', description: 'The secret itself is never returned.' },
          redirectUri: { type: 'string', description: 'What the organization registers at its IdP.' },
        }),
        object(
          [
            ...PROVIDER_COMMON,
            'idpEntityId',
            'ssoUrl',
            'signaturePolicy',
            'idpCertificates',
            'acsUrl',
            'spEntityId',
            'metadataUrl',
          ],
          {
            ...PROVIDER_PROPERTIES,
            protocol: { const: 'saml' },
            idpEntityId: { type: 'string' },
            ssoUrl: { type: 'string' },
            signaturePolicy: { enum: ['assertion', 'response', 'both', 'assertion_or_response'] },
            idpCertificates: arrayOf(
              object(['sha256Fingerprint', 'subject', 'notBefore', 'notAfter'], {
                sha256Fingerprint: { type: 'string', pattern: '^[0-9a-f]{64}$' },
                subject: { type: 'string' },
                notBefore: { type: 'string' },
                notAfter: { type: 'string' },
              }),
            ),
            acsUrl: { type: 'string', description: 'The assertion consumer service URL (HTTP-POST).' },
            spEntityId: { type: 'string' },
            metadataUrl: { type: 'string' },
          },
        ),
      ],
      description: 'FederationProviderView: what to paste into the IdP and how the provider stands; never a secret.',
    },
    FederationSignInOption: object(['providerId', 'protocol', 'displayName', 'startUrl'], {
      providerId: { type: 'string' },
      protocol: { enum: ['oidc', 'saml'] },
      displayName: { type: 'string' },
      startUrl: { type: 'string' },
    }),
  };
}
