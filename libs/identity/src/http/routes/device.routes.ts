import { formatTimestamp } from '../../tokens/timestamp.format.js';
import type { DeviceGrantRecord } from '../../store/identity-device.records.js';
import { respondIdentityJson } from '../identity-response.js';
import { decodeBody, isUuidV7 } from '../request-fields.js';
import { ref } from './route-doc.js';
import { fields, route, type IdentityRouteTable } from './route-table.js';

const BASE = '/identity/v1/device';
const USER_CODE = { userCode: { kind: 'text', min: 1, max: 64 } } as const;
const USER_CODE_BODY = fields(USER_CODE);
const CANCEL_BODY = fields({ deviceCode: { kind: 'text', min: 43, max: 43 } });
const OK = { description: 'Done', body: ref('Ok') };
const MAX_CAPABILITIES = 64;
/** Route 35 takes at most 256 bytes of body (identity-http §4.1). */
const INSPECT_BODY_BYTES = 256;

/** `{userCode, organizationId, capabilities}`: 1..64 distinct capability names (route 36). */
function approveBody(
  json: unknown,
): { userCode: string; organizationId: string; capabilities: readonly string[] } | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
  const { capabilities, organizationId, ...rest } = json as Record<string, unknown>;
  const decoded = decodeBody(rest, USER_CODE);
  if (decoded === undefined || typeof organizationId !== 'string' || !isUuidV7(organizationId)) return undefined;
  if (!Array.isArray(capabilities) || capabilities.length < 1 || capabilities.length > MAX_CAPABILITIES) {
    return undefined;
  }
  if (!capabilities.every((name) => typeof name === 'string' && name.length >= 1 && name.length <= 200)) {
    return undefined;
  }
  if (new Set(capabilities).size !== capabilities.length) return undefined;
  return { userCode: decoded.userCode, organizationId, capabilities: capabilities as string[] };
}

function grantView(grant: DeviceGrantRecord) {
  return {
    id: grant.id,
    clientName: grant.clientName,
    requestedCapabilities: [...grant.requestedCapabilities],
    state: grant.state,
    createdAt: formatTimestamp(grant.createdAt),
    expiresAt: formatTimestamp(grant.expiresAt),
  };
}

/**
 * Device confirmation routes 35–38 (identity-http §4.1, identity-model §5.5): the signed-in user
 * inspects the grant of a user code (the confirmation screen), then approves it for one explicit
 * organization with capabilities ⊆ requested ⊆ their effective capabilities there, or denies it;
 * both only from the session that inspected it in the last 10 minutes. The device-code holder
 * may cancel.
 */
export const DEVICE_ROUTES: IdentityRouteTable = [
  route({
    method: 'POST',
    path: BASE,
    callers: { user: true },
    rateLimit: { policy: 'device_user_code', key: 'user' },
    bodyLimitBytes: INSPECT_BODY_BYTES,
    body: USER_CODE_BODY,
    doc: {
      tag: 'device',
      summary: 'Inspect the device grant of a user code',
      description:
        'Body at most 256 bytes. The confirmation screen: records that this session inspected the grant (approve and deny require it within 10 minutes). Denied and authorized grants stay visible. A malformed code is 401 `invalid_credentials`.',
      responses: { 200: { description: 'The grant', body: ref('DeviceGrantView') } },
      errors: ['invalid_credentials', 'not_found'],
    },
    handle: async (call) => {
      const { userCode } = await call.body();
      respondIdentityJson(call.exchange, 200, grantView(await call.services.device.inspect(call.caller(), userCode)));
    },
  }),
  route({
    method: 'POST',
    path: `${BASE}/approve`,
    callers: { user: true },
    rateLimit: { policy: 'device_user_code', key: 'user' },
    body: approveBody,
    doc: {
      tag: 'device',
      summary: 'Approve an inspected device grant',
      description:
        'For one explicit organization; `capabilities` ⊆ the requested ones ⊆ the caller’s effective capabilities there. Any failed precondition (not inspected by this session in the last 10 minutes, not pending, expired, no active membership, capabilities) is 404.',
      requestBody: {
        type: 'object',
        additionalProperties: false,
        required: ['userCode', 'organizationId', 'capabilities'],
        properties: {
          userCode: { type: 'string', minLength: 1, maxLength: 64 },
          organizationId: ref('Uuid'),
          capabilities: {
            type: 'array',
            minItems: 1,
            maxItems: MAX_CAPABILITIES,
            uniqueItems: true,
            items: { type: 'string', minLength: 1, maxLength: 200 },
          },
        },
      },
      responses: { 200: OK },
      errors: ['invalid_credentials', 'not_found'],
    },
    handle: async (call) => {
      await call.services.device.approve(call.caller(), await call.body());
      respondIdentityJson(call.exchange, 200, { ok: true });
    },
  }),
  route({
    method: 'POST',
    path: `${BASE}/deny`,
    callers: { user: true },
    rateLimit: { policy: 'device_user_code', key: 'user' },
    body: USER_CODE_BODY,
    doc: {
      tag: 'device',
      summary: 'Deny an inspected device grant',
      description: 'Only from the session that inspected it in the last 10 minutes; else 404.',
      responses: { 200: OK },
      errors: ['invalid_credentials', 'not_found'],
    },
    handle: async (call) => {
      const { userCode } = await call.body();
      await call.services.device.deny(call.caller(), userCode);
      respondIdentityJson(call.exchange, 200, { ok: true });
    },
  }),
  route({
    method: 'POST',
    path: `${BASE}/cancel`,
    callers: { anonymous: true, user: true },
    rateLimit: { policy: 'device_code_holder', key: 'peer' },
    body: CANCEL_BODY,
    doc: {
      tag: 'device',
      summary: 'Cancel a device grant (the device-code holder)',
      description: 'A pending or authorized grant is cancelled. A malformed code is 401; unknown or final grants 404.',
      responses: { 200: OK },
      errors: ['invalid_credentials', 'not_found'],
    },
    handle: async (call) => {
      const { deviceCode } = await call.body();
      await call.services.device.cancel(call, deviceCode);
      respondIdentityJson(call.exchange, 200, { ok: true });
    },
  }),
];
