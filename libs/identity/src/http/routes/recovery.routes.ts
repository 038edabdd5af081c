import { respondIdentityJson } from '../identity-response.js';
import { ticketView } from '../identity-views.js';
import { decodeBody } from '../request-fields.js';
import { fields, route, type IdentityRouteTable } from './route-table.js';
import { respondSessionCreated } from './session-grant.js';

const LABELS = {
  deviceLabel: { kind: 'text', min: 1, max: 200, optional: true },
  devicePlatform: { kind: 'text', min: 1, max: 200, optional: true },
} as const;
const USE_BODY = fields({ code: { kind: 'text', min: 20, max: 128 }, ...LABELS });
const ISSUE_BODY = fields({ userId: { kind: 'uuidv7' } });
const REDEEM_BODY = fields({ token: { kind: 'text', min: 20, max: 512 }, ...LABELS });
const TICKETS = '/identity/v1/recovery/admin/tickets';
/** ANON routes: anonymous or a full session; a restricted session is refused (identity-http §2 stage 7). */
const ANYONE = { anonymous: true, user: true } as const;
/** Routes 18–20 exist only when both a platform authorizer and a notification sink are configured. */
const adminRecoveryConfigured = (kernel: { adminRecovery?: unknown }) => kernel.adminRecovery !== undefined;

/** `{expectedGeneration?}`: an integer ≥ 0 when present (identity-http §4.2); `null` when absent. */
function expectedGeneration(json: unknown): { expectedGeneration: number | null } | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
  const { expectedGeneration: value, ...rest } = json as Record<string, unknown>;
  if (decodeBody(rest, {}) === undefined) return undefined;
  if (value === undefined) return { expectedGeneration: null };
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) return undefined;
  return { expectedGeneration: value };
}

/**
 * Recovery routes 16–20 (identity-http §4.1, identity-model §5.6): replace the recovery codes
 * (ten new codes shown once), use one code for a 15-minute restricted session (rate limited before
 * any code is checked), and administrative recovery tickets (issue, cancel, redeem).
 */
export const RECOVERY_ROUTES: IdentityRouteTable = [
  route({
    method: 'POST',
    path: '/identity/v1/recovery/codes/replace',
    callers: { user: true },
    body: expectedGeneration,
    handle: async (call) => {
      const caller = call.caller();
      const body = await call.body();
      const replaced = await call.services.recovery.replaceCodes(caller, body.expectedGeneration);
      respondIdentityJson(call.exchange, 200, { generation: replaced.generation, codes: replaced.codes });
    },
  }),
  route({
    method: 'POST',
    path: '/identity/v1/recovery/codes/use',
    callers: ANYONE,
    rateLimit: { policy: 'recovery_code', key: 'peer' },
    body: USE_BODY,
    handle: async (call) => {
      const { code, ...labels } = await call.body();
      const { issued, session } = await call.services.recovery.useCode(call, code, labels);
      respondSessionCreated(call.kernel, call.exchange, issued, session);
    },
  }),
  route({
    method: 'POST',
    path: TICKETS,
    callers: { user: true },
    available: adminRecoveryConfigured,
    body: ISSUE_BODY,
    handle: async (call) => {
      const caller = call.caller();
      const { userId } = await call.body();
      const ticket = await call.services.recovery.tickets.issue(caller, userId);
      respondIdentityJson(call.exchange, 201, ticketView(ticket, call.at));
    },
  }),
  route({
    method: 'DELETE',
    path: `${TICKETS}/:ticketId`,
    callers: { user: true },
    available: adminRecoveryConfigured,
    handle: async (call) => {
      const caller = call.caller();
      const ticket = await call.services.recovery.tickets.cancel(caller, call.uuid('ticketId'));
      respondIdentityJson(call.exchange, 200, ticketView(ticket, call.at));
    },
  }),
  route({
    method: 'POST',
    path: `${TICKETS}/redeem`,
    callers: ANYONE,
    available: adminRecoveryConfigured,
    rateLimit: { policy: 'admin_ticket_redeem', key: 'peer' },
    body: REDEEM_BODY,
    handle: async (call) => {
      const { token, ...labels } = await call.body();
      const { issued, session } = await call.services.recovery.tickets.redeem(call, token, labels);
      respondSessionCreated(call.kernel, call.exchange, issued, session);
    },
  }),
];
