import { EntitySchema } from '@mikro-orm/core';
import { IDENTITY_SCHEMA } from '../schema/identity-schema.values.js';
import {
  check,
  IDENTITY_ENTITY_NAMES,
  integerColumn,
  textColumn,
  timestampColumn,
  versionColumn,
} from './entity-columns.js';

/**
 * One fixed-window counter of `tessera_identity.rate_limit_buckets`, keyed by
 * `<policy>:` + keyed pseudonym (never a raw address or user id).
 *
 * @example
 * const bucket = await em.findOne(IdentityRateLimitBucketSchema, { bucketKey });
 */
export interface IdentityRateLimitBucketRow {
  bucketKey: string;
  windowStart: Date;
  windowSeconds: number;
  count: number;
  version: number;
}

/**
 * Entity of `tessera_identity.rate_limit_buckets` (index on `window_start` for purges).
 *
 * @example
 * const stale = await em.count(IdentityRateLimitBucketSchema, { windowStart: { $lt: cutoff } });
 */
export const IdentityRateLimitBucketSchema = new EntitySchema<IdentityRateLimitBucketRow>({
  name: IDENTITY_ENTITY_NAMES.rateLimitBucket,
  tableName: 'rate_limit_buckets',
  schema: IDENTITY_SCHEMA,
  properties: {
    bucketKey: textColumn('bucket_key', { primary: true }),
    windowStart: timestampColumn('window_start'),
    windowSeconds: integerColumn('window_seconds'),
    count: integerColumn('count'),
    version: versionColumn(),
  },
  indexes: [{ name: 'rate_limit_buckets_window_start_index', properties: ['windowStart'] }],
  checks: [
    check('rate_limit_buckets_bucket_key_check', "bucket_key ~ '^[a-z][a-z0-9_]{0,63}:[A-Za-z0-9_-]{43}$'"),
    check('rate_limit_buckets_window_seconds_check', 'window_seconds >= 1 and window_seconds <= 86400'),
    check('rate_limit_buckets_count_check', 'count >= 0'),
    check('rate_limit_buckets_version_check', 'version >= 0'),
  ],
});
