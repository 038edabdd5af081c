import type { JsonSchema } from '../routes/route-doc.js';

/** RFC 3339 UTC with `Z`; a millisecond fraction only when non-zero (identity-http §1). */
export const TIMESTAMP: JsonSchema = {
  type: 'string',
  format: 'date-time',
  pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{3})?Z$',
};
export const ROLE: JsonSchema = { type: 'string', enum: ['owner', 'admin', 'publisher', 'viewer'] };
export const ASSURANCE: JsonSchema = { type: 'string', enum: ['recovery', 'session', 'passkey', 'step_up'] };
/** A principal's assurance: a session's, or `device_token` for a device access token (route 1). */
export const PRINCIPAL_ASSURANCE: JsonSchema = {
  type: 'string',
  enum: ['recovery', 'session', 'passkey', 'step_up', 'device_token'],
};
export const CAPABILITY: JsonSchema = {
  type: 'string',
  pattern: '^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)+$',
  maxLength: 200,
};
export const CSRF_TOKEN: JsonSchema = {
  type: 'string',
  pattern: '^[A-Za-z0-9_-]{43}$',
  description: 'Send back as `X-CSRF-Token` on unsafe requests (kept in sessionStorage `tessera.identity.csrf.v1`).',
};
export const VERSION: JsonSchema = { type: 'integer', minimum: 0 };

export const TOKEN_SHOWN_ONCE: JsonSchema = {
  type: 'string',
  minLength: 20,
  maxLength: 512,
  description: 'Shown once; only its digest is stored.',
};
