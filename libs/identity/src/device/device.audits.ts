import type { AuditEventBuilder } from '../audit/audit-event.builder.js';
import type { IdentityCall } from '../context/identity-call.js';
import type { DeviceTokenFamilyRecord } from '../store/identity-device.records.js';
import type { AuditEventInput } from '../store/identity-records.js';
import type { DeviceOAuthCall } from './device-oauth.wire.js';

const ANONYMOUS = { type: 'anonymous' } as const;

/**
 * The audit events of the device flow (identity-model §8.2): decisions of the approving user,
 * grant lifecycle events of the anonymous device, and token-family events (targets name the grant
 * a family came from: one family per grant).
 *
 * @example
 * const audits = new DeviceAudits(kernel.audit);
 * audits.grant(call, grantId, 'device_authorization_started');
 */
export class DeviceAudits {
  constructor(private readonly audit: Pick<AuditEventBuilder, 'event'>) {}

  decision(caller: IdentityCall, organizationId: string | null, reasonCode: string): AuditEventInput {
    return this.audit.event(caller.exchange, caller.at, {
      actor: { type: 'user', userId: caller.context.principal.id },
      action: 'device_grant.changed',
      organizationId,
      reasonCode,
    });
  }

  grant(call: DeviceOAuthCall, grantId: string, reasonCode: string): AuditEventInput {
    return this.audit.event(call.exchange, call.at, {
      actor: ANONYMOUS,
      action: 'device_grant.changed',
      target: { type: 'device_grant', id: grantId },
      reasonCode,
    });
  }

  family(
    call: DeviceOAuthCall,
    family: DeviceTokenFamilyRecord,
    action: string,
    reasonCode: string | null,
    outcome: 'succeeded' | 'denied' = 'succeeded',
  ): AuditEventInput {
    return this.audit.event(call.exchange, call.at, {
      actor: ANONYMOUS,
      action,
      organizationId: family.organizationId,
      // Audit targets name the grant a family came from (one family per grant).
      target: { type: 'device_grant', id: family.deviceGrantId },
      outcome,
      reasonCode,
    });
  }

  refresh(
    call: DeviceOAuthCall,
    kind: 'refreshed' | 'retried' | 'replay_detected' | 'membership_changed',
    family: DeviceTokenFamilyRecord,
  ): AuditEventInput {
    switch (kind) {
      case 'refreshed':
        return this.family(call, family, 'device_token.refreshed', null);
      case 'retried':
        return this.family(call, family, 'device_token.refreshed', 'refresh_retry_window');
      case 'replay_detected':
        return this.family(call, family, 'device_token.replay_detected', 'refresh_token_replay', 'denied');
      case 'membership_changed':
        return this.family(call, family, 'device_token.revoked', 'membership_authorization_changed', 'denied');
    }
  }

  /** The device-code holder cancelled its grant (the grant id is known only to the store). */
  cancelled(call: DeviceOAuthCall): AuditEventInput {
    return this.audit.event(call.exchange, call.at, {
      actor: ANONYMOUS,
      action: 'device_grant.changed',
      reasonCode: 'device_authorization_cancelled',
    });
  }
}
