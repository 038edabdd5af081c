import type {
  Assurance,
  AuthenticationMethod,
  MembershipRecord,
  OrganizationRecord,
  OrganizationRole,
  SessionRecord,
} from '../store/identity-records.js';

/**
 * What a device principal acts through (identity-model §5.5): its token family, the family's
 * client and its one organization (present on every request of the device, whatever the route
 * names; organization scope itself still comes only from the route).
 */
export interface DeviceDelegation {
  readonly familyId: string;
  readonly clientId: string;
  readonly organization: OrganizationRecord;
}

/** Kinds of identity principal (identity-model §1). */
export type PrincipalKind = 'user' | 'device' | 'service';

/** Assurance as a principal carries it: session assurances plus the bearer kinds. */
export type PrincipalAssurance = Assurance | 'device_token' | 'service_credential';

/**
 * Who is calling. `roles` is always empty: organization roles live only in the context
 * (identity-model §1).
 */
export interface IdentityPrincipal {
  readonly kind: PrincipalKind;
  readonly id: string;
  readonly assurance: PrincipalAssurance;
  readonly authenticationMethod: AuthenticationMethod | 'device_token' | 'service_credential';
  readonly directCapabilities: readonly string[];
  readonly roles: readonly [];
}

/** The resolved identity of one request (identity-model §1). */
export interface IdentityContext {
  readonly principal: IdentityPrincipal;
  readonly session?: SessionRecord;
  /** Only for a device principal. */
  readonly device?: DeviceDelegation;
  readonly organization?: OrganizationRecord;
  readonly membership?: MembershipRecord;
  readonly role?: OrganizationRole;
  readonly effectiveCapabilities: ReadonlySet<string>;
  readonly requestId: string;
  readonly requestTime: Date;
}

/** Numeric assurance levels (identity-model §1). */
export const ASSURANCE_LEVEL: Readonly<Record<PrincipalAssurance | 'anonymous', number>> = Object.freeze({
  anonymous: 0,
  recovery: 10,
  session: 20,
  device_token: 20,
  passkey: 50,
  service_credential: 50,
  step_up: 80,
});

/** `true` for a restricted (recovery-assurance) session. */
export function isRestricted(context: IdentityContext | undefined): boolean {
  return context?.principal.kind === 'user' && context.principal.assurance === 'recovery';
}
