import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { TESSERA_EXCHANGE, type Exchange } from '@tessera/web';
import { IdentityError } from '../errors/identity.errors.js';
import type { IdentityContext } from '../context/identity-context.js';
import { getIdentityContext, getRecordedCredentialFailure } from '../http/identity-exchange.js';
import {
  decideCapability,
  decideIdentity,
  decideOrganization,
  decideOrganizationRole,
  decideRecentPasskey,
  decideRecoveryEnrollmentSession,
  type GuardDecision,
} from './identity-decisions.js';
import { IDENTITY_REQUIREMENTS, type IdentityRequirement } from './identity-guard.metadata.js';

/**
 * Evaluation order of requirements, whatever order the decorators were applied in (handler before
 * class, stacked or listed): authentication (401) before organization, role and capability (404),
 * and the recent-passkey rule (403) last (identity-http §2, stages 7 and 10).
 */
const STAGE: Readonly<Record<IdentityRequirement['kind'], number>> = {
  identity: 0,
  recovery_enrollment: 0,
  organization: 1,
  role: 2,
  capability: 3,
  recent_passkey: 4,
};

/**
 * The Nest adapter of the identity decisions: reads the requirements set by the decorators on the
 * handler and class, evaluates each pure decision over the request's identity context, and throws
 * `IdentityError(code)` on the first denial in {@link STAGE} order (rendered by `IdentityExceptionFilter`).
 */
@Injectable()
export class IdentityGuard implements CanActivate {
  constructor(protected readonly reflector: Reflector) {}

  canActivate(execution: ExecutionContext): boolean {
    const requirements = this.reflector.getAllAndMerge<IdentityRequirement[]>(IDENTITY_REQUIREMENTS, [
      execution.getHandler(),
      execution.getClass(),
    ]);
    if (requirements.length === 0) return true;
    const exchange = this.getExchange(execution);
    const context = exchange === undefined ? undefined : getIdentityContext(exchange);
    const recorded = exchange === undefined ? undefined : getRecordedCredentialFailure(exchange);
    for (const requirement of [...requirements].sort((a, b) => STAGE[a.kind] - STAGE[b.kind])) {
      const decision = this.decide(requirement, context, recorded);
      if (!decision.allow) throw new IdentityError(decision.code);
    }
    return true;
  }

  /** The exchange RouterModule attached to the request (no exchange → anonymous). */
  protected getExchange(execution: ExecutionContext): Exchange | undefined {
    const request = execution.switchToHttp().getRequest<Record<symbol, Exchange | undefined>>();
    return request[TESSERA_EXCHANGE];
  }

  protected decide(
    requirement: IdentityRequirement,
    context: IdentityContext | undefined,
    recorded: ReturnType<typeof getRecordedCredentialFailure>,
  ): GuardDecision {
    switch (requirement.kind) {
      case 'identity':
        return decideIdentity(context, recorded);
      case 'recovery_enrollment':
        return decideRecoveryEnrollmentSession(context);
      case 'organization':
        return decideOrganization(context, requirement.expectedId);
      case 'role':
        return decideOrganizationRole(context, requirement.roles);
      case 'capability':
        return decideCapability(context, requirement.capability);
      case 'recent_passkey':
        return decideRecentPasskey(context, requirement.maxAgeSeconds);
    }
  }
}
