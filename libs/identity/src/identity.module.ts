import { Module, type OnModuleDestroy, type Provider } from '@nestjs/common';
import {
  Router,
  RouterRegistration,
  TESSERA_ERROR_MAPPER,
  TESSERA_PIPELINE_MIDDLEWARE,
  TESSERA_ROUTER_ERROR_RENDERER,
  type PipelineMiddlewareContribution,
} from '@tessera/web';
import { AuditEventBuilder } from './audit/audit-event.builder.js';
import { createIdentityConfig } from './config/identity-config.validator.js';
import { IdentityStartupError } from './errors/identity-boot.errors.js';
import { identityAuthorityCheck, identityRequestId, identityRequestTime } from './http/pipeline-stages.js';
import { identityMiddleware } from './http/identity.middleware.js';
import { CompositeBearerResolver } from './http/bearer-credential.js';
import { DeviceAccessTokenResolver } from './device/device-bearer.resolver.js';
import { identityCsrfMiddleware } from './http/csrf.middleware.js';
import { federationResponseHeaders, isFederationCallbackPath } from './http/federation-http.js';
import { resolveFederationSettings } from './federation/federation-settings.js';
import { trustedProxyList } from './http/client-address.js';
import { identityErrorMapper } from './http/identity-error.mapper.js';
import { oauthErrorMapper } from './http/oauth-response.js';
import { identityRouterErrorRenderer, oauthRouterErrorRenderer } from './http/identity-router-errors.js';
import { answersCookieFailures, identityRouter } from './http/identity.router.js';
import type { IdentityKernel } from './identity-kernel.js';
import {
  ConfigurableModuleClass,
  IDENTITY_MODULE_OPTIONS,
  type IdentityModuleOptions,
} from './identity.module-definition.js';
import { IdentityService, logStartupFailure } from './identity.service.js';
import { SessionValidationCache } from './sessions/session-validation.cache.js';
import { IdentityInvitations } from './invitations/invitation.service.js';
import { resolveInvitationDelivery } from './invitations/invitation-delivery.settings.js';
import { IdentityAudit } from './audit/audit.service.js';
import { IdentityMaintenance } from './maintenance/identity-maintenance.service.js';
import { IdentityHealth } from './health/identity-health.service.js';
import { identityHealthRouter } from './health/identity-health.router.js';
import { IDENTITY_KERNEL } from './identity.tokens.js';
import { requireReady, requireServerDatabase } from './runtime/identity-readiness.check.js';
import { createNodeIdentityRuntime } from './runtime/node-identity.runtime.js';
import { scimErrorMapper, scimRouterErrorRenderer } from './scim/http/scim-error.mapper.js';
import { scimRouter } from './scim/http/scim.router.js';
import { resolveScimSettings } from './scim/scim.options.js';
import { ServiceCredentialResolver } from './service-identities/service-credential.resolver.js';
import { SessionResolver } from './sessions/session-resolver.js';
import { IdentityRateLimiter } from './store/identity-rate-limiter.port.js';
import { IdentityStore } from './store/identity-store.port.js';
import { IdentityChangeFeed } from './store/identity-change-feed.port.js';
import { tracedStage, tracedStore } from './telemetry/identity-telemetry.js';

const kernelProvider: Provider = {
  provide: IDENTITY_KERNEL,
  inject: [IDENTITY_MODULE_OPTIONS, IdentityStore, IdentityRateLimiter, { token: IdentityChangeFeed, optional: true }],
  useFactory: async (
    options: IdentityModuleOptions,
    store: IdentityStore,
    rateLimiter: IdentityRateLimiter,
    changeFeed: IdentityChangeFeed | undefined,
  ): Promise<IdentityKernel> => {
    const config = createIdentityConfig(options.config);
    const invitationDelivery = resolveInvitationDelivery(
      options.notificationSink,
      options.invitations,
      config.publicBaseUrl,
    );
    const runtime = options.runtime ?? createNodeIdentityRuntime();
    const keys = await requireReady(runtime, config)
      .then(async (ready) => {
        if (options.unsafeAllowEmbeddedDatabase !== true) await requireServerDatabase(store, config);
        return ready;
      })
      .catch((error: unknown) => {
        if (error instanceof IdentityStartupError) logStartupFailure(error);
        throw error;
      });
    const federation = await resolveFederationSettings(options.federation, config, runtime.secrets).catch(
      (error: unknown) => {
        if (error instanceof IdentityStartupError) logStartupFailure(error);
        throw error;
      },
    );
    const audit = new AuditEventBuilder(runtime, keys.auditKey, config.audit);
    const sessionCache = new SessionValidationCache(config.lifetimes.sessionCacheSeconds * 1000);
    await sessionCache.attach(changeFeed);
    const { platformAuthorizer: authorizer, notificationSink: sink } = options;
    const deliverRecoveryTicket = sink?.deliverRecoveryTicket;
    return {
      config,
      runtime,
      keys,
      store: sessionCache.invalidating(tracedStore(store)),
      sessionCache,
      rateLimiter,
      audit,
      capabilityResolvers: options.capabilityResolvers ?? [],
      federation,
      scim: resolveScimSettings(options.scim),
      ...(authorizer !== undefined && typeof deliverRecoveryTicket === 'function'
        ? {
            adminRecovery: {
              authorizer,
              sink: { deliverRecoveryTicket: (input) => deliverRecoveryTicket.call(sink, input) },
            },
          }
        : {}),
      ...(invitationDelivery === undefined ? {} : { invitationDelivery }),
    };
  },
};

/** The five pre-route stages of identity-http §2 at orders 100–400, each traced (`identity.stage <name>`). */
function pipelineStages(kernel: IdentityKernel, options: IdentityModuleOptions): PipelineMiddlewareContribution[] {
  const { config, runtime, keys, store } = kernel;
  const enforce = config.environment === 'staging' || config.environment === 'production';
  const sessions = new SessionResolver(
    store,
    keys.sessionPepper,
    {
      idleSeconds: config.lifetimes.sessionIdleSeconds,
      touchIntervalSeconds: config.lifetimes.touchIntervalSeconds,
    },
    kernel.sessionCache.enabled ? kernel.sessionCache : undefined,
  );
  return [
    { order: 100, middleware: tracedStage('request_id', identityRequestId(runtime.random, config.requestIdHeader)) },
    { order: 150, middleware: tracedStage('federation_headers', federationResponseHeaders) },
    { order: 200, middleware: tracedStage('request_time', identityRequestTime(runtime.clock)) },
    {
      order: 250,
      middleware: tracedStage(
        'authority_check',
        identityAuthorityCheck({
          publicBaseUrl: config.publicBaseUrl,
          enforce,
          trusted: trustedProxyList(config.forwarding),
        }),
      ),
    },
    {
      order: 300,
      middleware: tracedStage(
        'credential_resolution',
        identityMiddleware({
          sessions,
          store,
          capabilityResolvers: kernel.capabilityResolvers,
          cookieName: config.sessionCookie.name,
          answersCookieFailures,
          organizationSelectors: [options.organizationSelector ?? []].flat(),
          // identity-http §2.1: a bearer is tried as a device access token first, then as a service credential.
          bearer: new CompositeBearerResolver([
            new DeviceAccessTokenResolver(store, keys.devicePepper, kernel.audit),
            new ServiceCredentialResolver(store, keys.servicePepper, {
              rotationOverlapSeconds: config.lifetimes.serviceCredentialRotationOverlapSeconds,
              touchIntervalSeconds: config.lifetimes.touchIntervalSeconds,
              allowlist: config.capabilities.service,
            }),
          ]),
        }),
      ),
    },
    {
      order: 400,
      middleware: tracedStage(
        'csrf',
        identityCsrfMiddleware({
          allowedOrigins: config.allowedOrigins,
          headerName: 'X-CSRF-Token',
          peppers: keys.sessionPepper,
          exempt: isFederationCallbackPath,
        }),
      ),
    },
  ];
}

/**
 * The identity platform for a Nest application (identity-model §7.3): validated configuration,
 * runtime self-tests, the request pipeline (through `RouterModule`), the identity routes, the
 * error envelope, `IdentityService` and the operator probes `GET /live` and `GET /ready`
 * (`IdentityHealth`, served on `RouterModule`'s management listener when it has one). Import
 * `RouterModule.forRoot()` once in the root module.
 *
 * @example
 * IdentityModule.forRoot({ config: { environment: 'development', publicBaseUrl: 'http://localhost:3000', rp: { id: 'localhost', name: 'Demo' }, ... }, store: IdentityMikroOrmModule.forRoot() })
 */
@Module({
  providers: [
    kernelProvider,
    IdentityService,
    IdentityInvitations,
    IdentityAudit,
    IdentityMaintenance,
    {
      // The session cache's change subscription (a dedicated database connection) closes with the app.
      provide: 'TesseraIdentitySessionCacheLifecycle',
      inject: [IDENTITY_KERNEL],
      useFactory: (kernel: IdentityKernel): OnModuleDestroy => ({ onModuleDestroy: () => kernel.sessionCache.close() }),
    },
    {
      provide: TESSERA_PIPELINE_MIDDLEWARE,
      inject: [IDENTITY_KERNEL, IDENTITY_MODULE_OPTIONS],
      useFactory: pipelineStages,
    },
    // The SCIM and OAuth mappers claim every error on `/scim/v2/**` (RFC 7644) and `/oauth/*` (RFC 6749) before the identity envelope.
    { provide: TESSERA_ERROR_MAPPER, useValue: [scimErrorMapper, oauthErrorMapper, identityErrorMapper] },
    {
      provide: TESSERA_ROUTER_ERROR_RENDERER,
      useValue: [identityRouterErrorRenderer, oauthRouterErrorRenderer, scimRouterErrorRenderer],
    },
    {
      provide: 'TesseraIdentityRouterRegistration',
      inject: [IDENTITY_KERNEL],
      useFactory: (kernel: IdentityKernel) =>
        new RouterRegistration('IdentityModule', [identityRouter(kernel) satisfies Router, scimRouter(kernel)]),
    },
    IdentityHealth,
    {
      // `GET /live` and `GET /ready` on the management listener when the app configures one.
      provide: 'TesseraIdentityHealthRegistration',
      inject: [IdentityHealth],
      useFactory: (health: IdentityHealth) =>
        new RouterRegistration(
          'IdentityHealth',
          health.settings.routes ? [identityHealthRouter(health)] : [],
          'management',
        ),
    },
  ],
  exports: [IdentityService, IdentityInvitations, IdentityAudit, IdentityMaintenance, IdentityHealth],
})
export class IdentityModule extends ConfigurableModuleClass {}
