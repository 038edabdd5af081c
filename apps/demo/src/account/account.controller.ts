import { Controller, Get } from '@nestjs/common';
import { CurrentIdentity, RequireIdentity, type IdentityContext } from '@tessera/identity';

/** A host Nest controller guarded by the identity decorators: `GET /account`. */
@Controller('account')
export class AccountController {
  @Get()
  @RequireIdentity()
  account(@CurrentIdentity() identity: IdentityContext): { userId: string; assurance: string } {
    return { userId: identity.principal.id, assurance: identity.principal.assurance };
  }
}
