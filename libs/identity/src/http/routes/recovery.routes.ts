import { respondIdentityJson } from '../identity-response.js';
import { ticketView } from '../identity-views.js';
import { decodeBody } from '../request-fields.js';
import { fields, route, type IdentityRouteTable } from './route-table.js';
import { ref, SETS_SESSION_COOKIE } from './route-doc.js';
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
    doc: {
      tag: 'recovery',
      summary: 'Replace the caller’s recovery codes',
      description:
        'Needs a recent passkey verification. `expectedGeneration` makes the replacement conditional on the current generation (409 otherwise).',
      requestBody: {
        type: 'object',
        additionalProperties: false,
        properties: { expectedGeneration: { type: 'integer', minimum: 0 } },
      },
      responses: { 200: { description: 'Ten new codes, shown once', body: ref('RecoveryCodes') } },
      errors: ['step_up_required', 'conflict'],
    },
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
    signIn: 'recovery_code',
    body: USE_BODY,
    doc: {
      tag: 'recovery',
      summary: 'Sign in with a recovery code',
      description: 'Answers a 15-minute restricted session (assurance `recovery`): register a new passkey next.',
      responses: {
        200: { description: 'Signed in (restricted)', body: ref('SessionCreated'), cookies: [SETS_SESSION_COOKIE] },
      },
      errors: [],
    },
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
    doc: {
      tag: 'recovery',
      summary: 'Issue an administrative recovery ticket for a user',
      description:
        'Needs a recent passkey verification and the platform authorizer’s consent; the ticket token goes only to the notification sink.',
      responses: { 201: { description: 'The ticket', body: ref('Ticket') } },
      errors: ['step_up_required', 'not_found', 'conflict'],
    },
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
    doc: {
      tag: 'recovery',
      summary: 'Cancel an administrative recovery ticket',
      responses: { 200: { description: 'The ticket (state `failed`)', body: ref('Ticket') } },
      errors: ['step_up_required', 'not_found', 'conflict'],
    },
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
    signIn: 'administrative_recovery',
    body: REDEEM_BODY,
    doc: {
      tag: 'recovery',
      summary: 'Redeem an administrative recovery ticket',
      description: 'Answers a 15-minute restricted session (assurance `recovery`): register a new passkey next.',
      responses: {
        200: { description: 'Signed in (restricted)', body: ref('SessionCreated'), cookies: [SETS_SESSION_COOKIE] },
      },
      errors: [],
    },
    handle: async (call) => {
      const { token, ...labels } = await call.body();
      const { issued, session } = await call.services.recovery.tickets.redeem(call, token, labels);
      respondSessionCreated(call.kernel, call.exchange, issued, session);
    },
  }),
];
