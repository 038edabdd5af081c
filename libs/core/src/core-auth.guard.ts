import {
  ForbiddenException,
  Injectable,
  UnauthorizedException,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Exchange, TESSERA_EXCHANGE } from '@tessera/web';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decideAccess, type CoreAccessRequirement } from './access-decision.js';
import { CoreAuthenticationProvider, InjectCoreAuthenticationProvider } from './authentication-provider.js';
import { CORE_PERMISSIONS_METADATA, CORE_ROLES_METADATA } from './core-auth.metadata.js';
import { resolveCorePrincipal } from './core-authentication.js';
import { CoreConfigError } from './core.errors.js';
import type { CorePrincipal } from './principal.js';

type TesseraRequest = IncomingMessage & { [TESSERA_EXCHANGE]?: Exchange };

/**
 * Nest guard over {@link decideAccess}: reads `@RequireCorePermission` / `@RequireCoreRole`
 * metadata with `reflector.getAllAndOverride` (handler over class), authenticates through the
 * module's {@link CoreAuthenticationProvider}, stores the principal on the request's exchange,
 * and throws `UnauthorizedException` (with the provider's `WWW-Authenticate`) or
 * `ForbiddenException`. Without metadata it requires authentication only. Override the protected
 * hooks to customise.
 *
 * @example
 * @UseGuards(CoreAuthGuard) // or, with metadata: @RequireCorePermission('metrics.read')
 * @Controller('internal')
 * export class InternalController {}
 */
@Injectable()
export class CoreAuthGuard implements CanActivate {
  constructor(
    protected readonly reflector: Reflector,
    @InjectCoreAuthenticationProvider() protected readonly provider: CoreAuthenticationProvider,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') {
      throw new CoreConfigError(
        'principal_unavailable',
        `CoreAuthGuard protects HTTP handlers only, not ${context.getType()}`,
      );
    }
    const requirement = this.getRequirement(context);
    const exchange = this.getExchange(context);
    const principal = await this.authenticate(exchange, context);
    const decision = decideAccess(principal, requirement);
    if (decision === 'unauthenticated') this.onUnauthenticated(context, exchange);
    if (decision === 'forbidden') this.onForbidden(context, principal!);
    return true;
  }

  /** The requirement of the handler: each list from the handler, else from the class. */
  protected getRequirement(context: ExecutionContext): CoreAccessRequirement {
    const targets = [context.getHandler(), context.getClass()];
    const permissions = this.reflector.getAllAndOverride<readonly string[] | undefined>(
      CORE_PERMISSIONS_METADATA,
      targets,
    );
    const roles = this.reflector.getAllAndOverride<readonly string[] | undefined>(CORE_ROLES_METADATA, targets);
    return { permissions, roles };
  }

  /** The request's exchange (the one RouterModule created, else a new one attached to the request). */
  protected getExchange(context: ExecutionContext): Exchange {
    const http = context.switchToHttp();
    const req = http.getRequest<TesseraRequest>();
    return (req[TESSERA_EXCHANGE] ??= new Exchange(req, http.getResponse<ServerResponse>()));
  }

  /** Resolves the principal (reusing one already on the exchange); `null` → 401. */
  protected authenticate(exchange: Exchange, _context: ExecutionContext): Promise<CorePrincipal | null> {
    return resolveCorePrincipal(exchange, this.provider);
  }

  /** Answers 401: sets the provider's `WWW-Authenticate` challenge and throws. */
  protected onUnauthenticated(_context: ExecutionContext, exchange: Exchange): never {
    const challenge = this.provider.challenge?.();
    if (challenge !== undefined) exchange.setHeader('www-authenticate', challenge);
    throw new UnauthorizedException();
  }

  /** Answers 403. */
  protected onForbidden(_context: ExecutionContext, _principal: CorePrincipal): never {
    throw new ForbiddenException();
  }
}
