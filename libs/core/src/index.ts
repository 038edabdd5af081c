export type { CorePrincipal, CorePrincipalAttributes, CorePrincipalInit } from './principal.js';
export { CORE_PRINCIPAL_ATTRIBUTE, createCorePrincipal, getCorePrincipal, isCoreAccessName } from './principal.js';
export { CoreConfigError } from './core.errors.js';
export type { CoreConfigErrorCode } from './core.errors.js';
export { sha256Hex, isSha256Hex, constantTimeEqual } from './digest.js';
export { CoreAuthenticationProvider, InjectCoreAuthenticationProvider } from './authentication-provider.js';
export { ApiKeyAuthenticationProvider } from './api-key-authentication.provider.js';
export type { ApiKeyAuthenticationOptions, ApiKeyEntry } from './api-key-authentication.provider.js';
export { BasicAuthenticationProvider } from './basic-authentication.provider.js';
export type { BasicAuthenticationOptions, BasicCredentialsVerifier } from './basic-authentication.provider.js';
export { parseBasicAuthorization, MAX_BASIC_AUTHORIZATION_LENGTH } from './basic-credentials.js';
export type { BasicCredentials } from './basic-credentials.js';
export {
  SessionCookieAuthenticationProvider,
  CORE_SESSION_ATTRIBUTE,
  getCoreSession,
} from './session-cookie-authentication.provider.js';
export type { SessionCookieAuthenticationOptions } from './session-cookie-authentication.provider.js';
export { decideAccess, coreAccessNames, coreAccessRequirement } from './access-decision.js';
export type { CoreAccessDecision, CoreAccessRequirement } from './access-decision.js';
export {
  requireCoreAccess,
  requireCorePrincipal,
  requireCorePermission,
  requireCoreRole,
} from './core-access.middleware.js';
export { CoreAuthGuard } from './core-auth.guard.js';
export { CORE_PERMISSIONS_METADATA, CORE_ROLES_METADATA } from './core-auth.metadata.js';
export {
  RequireCorePermission,
  RequireCoreRole,
  RequireCoreAuthentication,
  CurrentCorePrincipal,
} from './core-auth.decorator.js';
export { CoreModule } from './core.module.js';
export { CORE_MODULE_OPTIONS } from './core.module-definition.js';
export { validateCoreModuleOptions } from './core.options.js';
export type { CoreModuleOptions } from './core.options.js';
export { CoreSessionStore, InjectCoreSessionStore } from './session-store.js';
export type { CoreSession, CoreSessionGrant } from './session-store.js';
export { generateCoreSessionToken, isCoreSessionToken, MAX_CORE_SESSION_TTL_SECONDS } from './session-token.js';
export { MikroOrmCoreSessionStore } from './mikro-orm/mikro-orm-session.store.js';
export type { MikroOrmCoreSessionStoreOptions } from './mikro-orm/mikro-orm-session.store.js';
export { CoreSessionSchema, coreEntities } from './mikro-orm/core-session.entity.js';
export type { CoreSessionRecord } from './mikro-orm/core-session.entity.js';
export { coreMigrations } from './mikro-orm/core-migrations.js';
export { Migration20250601000000CoreSession } from './mikro-orm/migrations/migration-20250601000000-core-session.js';
