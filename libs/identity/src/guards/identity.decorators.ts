import { applyDecorators, createParamDecorator, UseFilters, UseGuards, type ExecutionContext } from '@nestjs/common';
import { TESSERA_EXCHANGE, type Exchange } from '@tessera/web';
import { getIdentityContext, getRequestId, getRequestTime } from '../http/identity-exchange.js';
import { isCapabilityName, ROLE_RANK } from '../organizations/capabilities.js';
import type { OrganizationRole } from '../store/identity-records.js';
import { IdentityExceptionFilter } from './identity-exception.filter.js';
import { IdentityGuard } from './identity.guard.js';
import { IDENTITY_REQUIREMENTS, type IdentityRequirement } from './identity-guard.metadata.js';

/**
 * Adds `value` to the handler's (or class's) own requirements, keeping them in reading order
 * (decorators apply bottom-up, so each one goes first). `SetMetadata` would replace the list: of
 * two stacked decorators (`@RequireIdentity() @RequireCapability('x')`) only the top one would be
 * enforced.
 */
function addRequirement(value: IdentityRequirement): ClassDecorator & MethodDecorator {
  return (target: object, _key?: string | symbol, descriptor?: PropertyDescriptor) => {
    const holder: object = descriptor === undefined ? target : (descriptor.value as object);
    const own = Reflect.getOwnMetadata(IDENTITY_REQUIREMENTS, holder) as IdentityRequirement[] | undefined;
    Reflect.defineMetadata(IDENTITY_REQUIREMENTS, [value, ...(own ?? [])], holder);
  };
}

function requirement(value: IdentityRequirement) {
  // Requirements accumulate on one target; getAllAndMerge then joins the handler's and the class's.
  return applyDecorators(addRequirement(value), UseGuards(IdentityGuard), UseFilters(IdentityExceptionFilter));
}

/** A non-restricted identity (401 otherwise). @example @RequireIdentity() */
export const RequireIdentity = () => requirement({ kind: 'identity' });

/** A restricted (recovery) session only. */
export const RequireRecoveryEnrollmentSession = () => requirement({ kind: 'recovery_enrollment' });

/** Organization scope (optionally a given organization); any failure is 404. */
export const RequireOrganization = (expectedId?: string) =>
  requirement(expectedId === undefined ? { kind: 'organization' } : { kind: 'organization', expectedId });

/** One of the given roles (exact set); any failure is 404. @example @RequireOrganizationRole('owner', 'admin') */
export function RequireOrganizationRole(...roles: OrganizationRole[]) {
  if (roles.length === 0 || roles.some((role) => !Object.hasOwn(ROLE_RANK, role))) {
    throw new TypeError(
      `@RequireOrganizationRole needs roles among owner, admin, publisher, viewer; got ${JSON.stringify(roles)}`,
    );
  }
  return requirement({ kind: 'role', roles });
}

/** A capability among the effective capabilities; any failure is 404. @example @RequireCapability('audit.read') */
export function RequireCapability(capability: string) {
  if (!isCapabilityName(capability))
    throw new TypeError(
      `@RequireCapability needs a capability name like 'audit.read'; got ${JSON.stringify(capability)}`,
    );
  return requirement({ kind: 'capability', capability });
}

/** A passkey or step-up session within `maxAgeSeconds` (default 300). */
export function RequireRecentPasskey(maxAgeSeconds?: number) {
  if (maxAgeSeconds !== undefined && !(Number.isInteger(maxAgeSeconds) && maxAgeSeconds > 0 && maxAgeSeconds <= 900)) {
    throw new TypeError('@RequireRecentPasskey maxAgeSeconds must be an integer in 1..900');
  }
  return requirement(
    maxAgeSeconds === undefined ? { kind: 'recent_passkey' } : { kind: 'recent_passkey', maxAgeSeconds },
  );
}

function exchangeOf(execution: ExecutionContext): Exchange | undefined {
  return execution.switchToHttp().getRequest<Record<symbol, Exchange | undefined>>()[TESSERA_EXCHANGE];
}

/** The request's `IdentityContext` (undefined when anonymous). */
export const CurrentIdentity = createParamDecorator((_: unknown, execution: ExecutionContext) => {
  const exchange = exchangeOf(execution);
  return exchange === undefined ? undefined : getIdentityContext(exchange);
});

/** The request's `IdentityPrincipal` (undefined when anonymous). */
export const CurrentPrincipal = createParamDecorator((_: unknown, execution: ExecutionContext) => {
  const exchange = exchangeOf(execution);
  return exchange === undefined ? undefined : getIdentityContext(exchange)?.principal;
});

/** The request id of identity-http §2. */
export const RequestId = createParamDecorator((_: unknown, execution: ExecutionContext) => {
  const exchange = exchangeOf(execution);
  return exchange === undefined ? undefined : getRequestId(exchange);
});

/** The instant captured for the request. */
export const RequestTime = createParamDecorator((_: unknown, execution: ExecutionContext) => {
  const exchange = exchangeOf(execution);
  return exchange === undefined ? undefined : getRequestTime(exchange);
});
