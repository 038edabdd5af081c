import type { ScimUserAttributes, ScimUserRecord } from '../store/identity-scim.records.js';

/**
 * The stored attributes of a SCIM user record (the PATCH engine's input).
 *
 * @example
 * const next = applyScimUserPatch(userAttributesOf(record), body);
 */
export function userAttributesOf(record: ScimUserRecord): ScimUserAttributes {
  return {
    userName: record.userName,
    externalId: record.externalId,
    displayName: record.displayName,
    nickName: record.nickName,
    title: record.title,
    userType: record.userType,
    preferredLanguage: record.preferredLanguage,
    locale: record.locale,
    timezone: record.timezone,
    active: record.active,
    name: { ...record.name },
    emails: record.emails.map((email) => ({ ...email })),
    enterprise: { ...record.enterprise },
  };
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * The identity user's display name (1..200 code points) from a SCIM user: `displayName`, else
 * `name.formatted`, else given + family name, else `userName`; control and bidirectional-override
 * characters removed.
 *
 * @example
 * identityDisplayName(attributes); // 'Barbara Jensen'
 */
export function identityDisplayName(attributes: ScimUserAttributes): string {
  const { name } = attributes;
  const joined = [name.givenName, name.familyName].filter((part) => part !== null && part.trim() !== '').join(' ');
  for (const candidate of [attributes.displayName, name.formatted, joined, attributes.userName]) {
    const cleaned = (candidate ?? '').replace(CONTROL, '').trim();
    if (cleaned !== '') return [...cleaned].slice(0, 200).join('');
  }
  return 'SCIM user';
}
