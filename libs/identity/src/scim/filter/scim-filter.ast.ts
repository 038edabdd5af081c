/**
 * The parsed form of an RFC 7644 §3.4.2.2 filter, with every attribute already resolved against
 * the resource's schema (case-insensitive names → the canonical paths below) and every comparison
 * value already coerced to the attribute's type. Stores translate it to parameterised SQL; nothing
 * of it is ever concatenated into SQL text.
 */

/** Canonical filterable attribute paths of a User (`enterprise.*` = the enterprise extension). */
export type ScimUserFilterAttribute =
  | 'id'
  | 'externalId'
  | 'userName'
  | 'displayName'
  | 'nickName'
  | 'title'
  | 'userType'
  | 'preferredLanguage'
  | 'locale'
  | 'timezone'
  | 'active'
  | 'name.formatted'
  | 'name.familyName'
  | 'name.givenName'
  | 'name.middleName'
  | 'name.honorificPrefix'
  | 'name.honorificSuffix'
  | 'emails.value'
  | 'emails.type'
  | 'emails.primary'
  | 'enterprise.employeeNumber'
  | 'enterprise.costCenter'
  | 'enterprise.organization'
  | 'enterprise.division'
  | 'enterprise.department'
  | 'meta.created'
  | 'meta.lastModified';

/** Canonical filterable attribute paths of a Group. */
export type ScimGroupFilterAttribute =
  'id' | 'externalId' | 'displayName' | 'members.value' | 'meta.created' | 'meta.lastModified';

/** Comparison operators (lower-case; the parser accepts any case). */
export type ScimComparator = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'ge' | 'lt' | 'le';

/**
 * A comparison value after coercion to the attribute's type: `string` for string attributes (and
 * ids), `boolean` for booleans, `Date` for dateTime attributes, `null` only with `eq`/`ne` (absent /
 * present).
 */
export type ScimFilterValue = string | boolean | Date | null;

/** A filter over attributes of type `A`. */
export type ScimFilter<A extends string = string> =
  | { readonly kind: 'compare'; readonly attribute: A; readonly op: ScimComparator; readonly value: ScimFilterValue }
  | { readonly kind: 'present'; readonly attribute: A }
  | { readonly kind: 'and'; readonly filters: readonly ScimFilter<A>[] }
  | { readonly kind: 'or'; readonly filters: readonly ScimFilter<A>[] }
  | { readonly kind: 'not'; readonly filter: ScimFilter<A> }
  /**
   * `emails[type eq "work" and value co "@x"]` (or `members[…]`): one value of the multi-valued
   * attribute must satisfy the whole inner filter, whose attributes are that attribute's
   * sub-attributes (`emails.type`, `emails.value`, ...).
   */
  | { readonly kind: 'valuePath'; readonly attribute: 'emails' | 'members'; readonly filter: ScimFilter<A> }
  /**
   * A comparison over an attribute of the schema that this server does not store
   * (`phoneNumbers.value eq "…"`, `addresses.country pr`): evaluated as absent (`ne` true, else false).
   */
  | { readonly kind: 'constant'; readonly value: boolean };

/** A filter over Users. */
export type ScimUserFilter = ScimFilter<ScimUserFilterAttribute>;
/** A filter over Groups. */
export type ScimGroupFilter = ScimFilter<ScimGroupFilterAttribute>;

/** Sort keys a list may name (`sortBy`), resolved case-insensitively. */
export type ScimUserSortKey = Exclude<ScimUserFilterAttribute, 'emails.value' | 'emails.type' | 'emails.primary'>;
/** Sort keys of Groups. */
export type ScimGroupSortKey = Exclude<ScimGroupFilterAttribute, 'members.value'>;

/** One page request of a list (RFC 7644 §3.4.2). */
export interface ScimListQuery<F, S> {
  readonly filter: F | null;
  readonly sortBy: S | null;
  readonly sortOrder: 'ascending' | 'descending';
  /** One-based. */
  readonly startIndex: number;
  /** 0..max page (0 = only `totalResults`). */
  readonly count: number;
}

/** One page of a list. */
export interface ScimListPage<R> {
  readonly totalResults: number;
  readonly resources: readonly R[];
}
