/**
 * The discovery documents of RFC 7644 §4 / RFC 7643 §5–7: what this server supports (PATCH,
 * filter, sort, ETags; not bulk, changePassword), its two resource types and the schemas of the
 * attributes it stores. Static: built once, small (no body-size surprise).
 */

const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const ENTERPRISE_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const IDENTITY_SCHEMA = 'urn:tessera:params:scim:schemas:extension:identity:1.0:User';
const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';
const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';
const CONFIG_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

type Mutability = 'readOnly' | 'readWrite' | 'immutable';
interface Attribute {
  name: string;
  type: 'string' | 'boolean' | 'dateTime' | 'reference' | 'complex';
  multiValued: boolean;
  description: string;
  required: boolean;
  caseExact: boolean;
  mutability: Mutability;
  returned: 'always' | 'default' | 'never';
  uniqueness: 'none' | 'server';
  subAttributes?: Attribute[];
  referenceTypes?: string[];
}

function text(name: string, description: string, extra: Partial<Attribute> = {}): Attribute {
  return {
    name,
    type: 'string',
    multiValued: false,
    description,
    required: false,
    caseExact: false,
    mutability: 'readWrite',
    returned: 'default',
    uniqueness: 'none',
    ...extra,
  };
}

const NAME_PARTS: [string, string][] = [
  ['formatted', 'The full name, formatted for display.'],
  ['familyName', 'The family name.'],
  ['givenName', 'The given name.'],
  ['middleName', 'The middle name(s).'],
  ['honorificPrefix', 'The honorific prefix, e.g. "Ms.".'],
  ['honorificSuffix', 'The honorific suffix, e.g. "III".'],
];

const USER_ATTRIBUTES: Attribute[] = [
  text('userName', 'Unique identifier of the user in the tenant, case-insensitive.', {
    required: true,
    uniqueness: 'server',
  }),
  text('name', 'The components of the user’s name.', {
    type: 'complex',
    subAttributes: NAME_PARTS.map(([name, description]) => text(name, description)),
  }),
  text('displayName', 'The name shown for the user.'),
  text('nickName', 'The casual name of the user.'),
  text('title', 'The user’s title.'),
  text('userType', 'The relationship to the organization, e.g. "Employee".'),
  text('preferredLanguage', 'Preferred language (RFC 7231 Accept-Language form).'),
  text('locale', 'Locale, e.g. "en-US".'),
  text('timezone', 'Time zone (IANA name).'),
  {
    ...text('active', 'false deprovisions the user in this organization (the membership is removed).'),
    type: 'boolean',
  },
  text('emails', 'Email addresses (informational; never merged with other accounts).', {
    type: 'complex',
    multiValued: true,
    subAttributes: [
      text('value', 'The address.'),
      text('type', 'A label, e.g. "work".'),
      { ...text('primary', 'The primary address (at most one).'), type: 'boolean' },
    ],
  }),
  text('groups', 'The groups of this tenant the user belongs to (change them through Groups).', {
    type: 'complex',
    multiValued: true,
    mutability: 'readOnly',
    subAttributes: [
      text('value', 'The group id.', { mutability: 'readOnly', caseExact: true }),
      { ...text('$ref', 'The group URI.', { mutability: 'readOnly' }), type: 'reference', referenceTypes: ['Group'] },
      text('display', 'The group’s displayName.', { mutability: 'readOnly' }),
    ],
  }),
];

const ENTERPRISE_ATTRIBUTES: Attribute[] = [
  text('employeeNumber', 'The employee number.'),
  text('costCenter', 'The cost center.'),
  text('organization', 'The organization name.'),
  text('division', 'The division.'),
  text('department', 'The department.'),
];

const IDENTITY_ATTRIBUTES: Attribute[] = [
  text('userId', 'The identity user this SCIM user provisions (the id of the identity routes).', {
    mutability: 'readOnly',
    returned: 'always',
    caseExact: true,
  }),
];

const GROUP_ATTRIBUTES: Attribute[] = [
  text('displayName', 'The group’s name, unique in the tenant (case-insensitive).', {
    required: true,
    uniqueness: 'server',
  }),
  text('members', 'The users of this tenant in the group.', {
    type: 'complex',
    multiValued: true,
    subAttributes: [
      text('value', 'The member’s user id.', { caseExact: true, mutability: 'immutable' }),
      { ...text('$ref', 'The member URI.', { mutability: 'immutable' }), type: 'reference', referenceTypes: ['User'] },
      text('display', 'The member’s userName.', { mutability: 'readOnly' }),
    ],
  }),
];

function schema(base: string, id: string, name: string, description: string, attributes: Attribute[]) {
  return {
    schemas: [SCHEMA_SCHEMA],
    id,
    name,
    description,
    attributes,
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${id}` },
  };
}

function resourceType(base: string, id: 'User' | 'Group') {
  return {
    schemas: [RESOURCE_TYPE_SCHEMA],
    id,
    name: id,
    endpoint: `/${id}s`,
    description: id === 'User' ? 'A person provisioned into the organization' : 'A group whose members may get roles',
    schema: id === 'User' ? USER_SCHEMA : GROUP_SCHEMA,
    ...(id === 'User'
      ? {
          schemaExtensions: [
            { schema: ENTERPRISE_SCHEMA, required: false },
            { schema: IDENTITY_SCHEMA, required: false },
          ],
        }
      : {}),
    meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/${id}` },
  };
}

function list(resources: readonly unknown[]) {
  return {
    schemas: [LIST_SCHEMA],
    totalResults: resources.length,
    startIndex: 1,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}

/** The discovery documents of one deployment (`base` = `<publicBaseUrl>/scim/v2`). */
export interface ScimDiscovery {
  readonly serviceProviderConfig: Record<string, unknown>;
  readonly resourceTypes: Record<string, unknown>;
  readonly resourceType: ReadonlyMap<string, Record<string, unknown>>;
  readonly schemas: Record<string, unknown>;
  readonly schema: ReadonlyMap<string, Record<string, unknown>>;
}

/**
 * Builds the discovery documents once for a base URL.
 *
 * @example
 * const discovery = scimDiscovery('https://id.example.com/scim/v2', 1000);
 */
export function scimDiscovery(base: string, maxPageSize: number): ScimDiscovery {
  const schemas = [
    schema(base, USER_SCHEMA, 'User', 'User Account', USER_ATTRIBUTES),
    schema(base, ENTERPRISE_SCHEMA, 'EnterpriseUser', 'Enterprise User', ENTERPRISE_ATTRIBUTES),
    schema(base, IDENTITY_SCHEMA, 'TesseraIdentityUser', 'The Tessera identity user (read-only)', IDENTITY_ATTRIBUTES),
    schema(base, GROUP_SCHEMA, 'Group', 'Group', GROUP_ATTRIBUTES),
  ];
  const types = [resourceType(base, 'User'), resourceType(base, 'Group')];
  return {
    serviceProviderConfig: {
      schemas: [CONFIG_SCHEMA],
      documentationUri: 'https://github.com/tessera/tessera#provisioning-scim',
      patch: { supported: true },
      bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
      filter: { supported: true, maxResults: maxPageSize },
      changePassword: { supported: false },
      sort: { supported: true },
      etag: { supported: true },
      authenticationSchemes: [
        {
          type: 'oauthbearertoken',
          name: 'Bearer token',
          description: 'The token of an organization’s SCIM connection, sent as Authorization: Bearer <token>.',
          primary: true,
        },
      ],
      meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
    },
    resourceTypes: list(types),
    resourceType: new Map(types.map((type) => [type.id.toLowerCase(), type])),
    schemas: list(schemas),
    schema: new Map(schemas.map((entry) => [entry.id.toLowerCase(), entry])),
  };
}
