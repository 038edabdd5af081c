import { ConfigurableModuleBuilder, type DynamicModule, type Type } from '@nestjs/common';
import type { IdentityConfig } from './config/identity.config.js';
import type { IdentityFederationOptions } from './federation/federation.options.js';
import type { IdentityScimOptions } from './scim/scim.options.js';
import type { IdentityHealthOptions } from './health/identity-health.options.js';
import type { CapabilityResolver, OrganizationSelector } from './context/capability-resolver.js';
import type { IdentityRuntime } from './runtime/identity.runtime.js';
import type { PlatformRecoveryAuthorizer, RecoveryNotificationSink } from './recovery/admin-recovery.port.js';
import type { InvitationNotificationSink } from './invitations/invitation-delivery.port.js';

/** Options of `IdentityModule.forRoot` (identity-model §7.3). */
export interface IdentityModuleOptions {
  /** The identity configuration; validated at boot, failing closed with `IdentityConfigError`. */
  config: IdentityConfig;
  /** Clock, random, crypto, HTTP client and secret resolver. @default createNodeIdentityRuntime() */
  runtime?: IdentityRuntime;
  /** Application grants (never identity-owned capabilities). @default [] */
  capabilityResolvers?: CapabilityResolver[];
  /** Decides who may issue administrative recovery tickets; with `notificationSink`, enables administrative recovery (`/identity/v1/recovery/admin/...`). */
  platformAuthorizer?: PlatformRecoveryAuthorizer;
  /**
   * Delivers out of band: `deliverRecoveryTicket` (with `platformAuthorizer`, enables administrative
   * recovery) and `deliverInvitation` (route 31 then sends the enrolment link instead of answering
   * the token; see `invitations`).
   */
  notificationSink?: IdentityNotificationSink;
  /** Invitation delivery through `notificationSink.deliverInvitation`. @default {} */
  invitations?: IdentityInvitationOptions;
  /** Picks the organization of host routes (identity routes name theirs in the path). @default [] */
  organizationSelector?: OrganizationSelector | readonly OrganizationSelector[];
  /**
   * Lets staging/production start on embedded PGlite, which the start otherwise refuses after
   * asking the live connection what it is. For tests of the hardened start only; never in a
   * deployment. @default false
   */
  unsafeAllowEmbeddedDatabase?: boolean;
  /** Enterprise federation (OIDC and SAML sign-in per organization, identity-http §6). @default enabled, no static providers */
  federation?: IdentityFederationOptions;
  /** SCIM 2.0 provisioning under `/scim/v2`: organization-managed connections, Users and Groups. @default enabled */
  scim?: IdentityScimOptions;
  /**
   * Operator probes `GET /live` and `GET /ready`, served on the management listener of
   * `RouterModule.forRoot({ management })` when it has one, else on the public listener.
   */
  health?: IdentityHealthOptions;
}

/** The notification sink: either delivery, or both. */
export type IdentityNotificationSink = Partial<RecoveryNotificationSink & InvitationNotificationSink>;

/** How route 31 hands a new invitation over when `notificationSink.deliverInvitation` is configured. */
export interface IdentityInvitationOptions {
  /**
   * Path of the enrolment page on `publicBaseUrl` that the delivered link opens; the token follows
   * in the fragment (`#token=…`). @default '/identity/enroll'
   */
  enrollPath?: string;
  /**
   * With a `deliverInvitation` sink, also answer the token in route 31's body (so the inviter can
   * copy the link as well). Without such a sink the token is always answered. @default false
   */
  returnTokenWithSink?: boolean;
  /** Bound on one delivery in milliseconds, 100..60000; a slower one counts as failed. @default 10000 */
  deliveryTimeoutMs?: number;
}

/** Module-level extras: the store module that provides `IdentityStore` and `IdentityRateLimiter`. */
export interface IdentityModuleExtras {
  /** The store module providing `IdentityStore`, `IdentityRateLimiter` and (for the session cache) `IdentityChangeFeed`, e.g. `IdentityMikroOrmModule.forRoot()` from `@tessera/identity-mikro-orm`. */
  store: DynamicModule | Type<unknown>;
}

export const {
  ConfigurableModuleClass,
  MODULE_OPTIONS_TOKEN: IDENTITY_MODULE_OPTIONS,
  OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<IdentityModuleOptions>({ moduleName: 'Identity' })
  .setClassMethodName('forRoot')
  .setExtras<IdentityModuleExtras>({ store: undefined as unknown as DynamicModule }, (definition, extras) => ({
    ...definition,
    imports: [...(definition.imports ?? []), extras.store],
  }))
  .build();
