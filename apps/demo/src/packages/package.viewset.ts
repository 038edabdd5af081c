import { ConflictException, Injectable } from '@nestjs/common';
import { EntityManager, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Exchange } from '@tessera/web';
import { BaseViewSet } from '@tessera/viewset';
import { getIdentityContext } from '@tessera/identity';
import { parseTodoId } from '../todos/todo.viewset.js';
import { PackageSchema, type Package } from './package.entity.js';
import type { PackageInput } from './package.serializer.js';

/** The organization the request is scoped to (the selector put it in the identity context). */
function organizationOf(exchange: Exchange): string {
  const organization = getIdentityContext(exchange)?.organization;
  if (organization === undefined) throw new Error('package routes run behind @RequireOrganization()');
  return organization.id;
}

/**
 * `/orgs/:organizationId/packages`: an organization's packages. Reading needs a member (or a
 * service credential) of that organization; publishing needs `package.publish`, an application
 * grant the demo's `CapabilityResolver` gives publishers, admins and owners, and that a service
 * credential can carry as a scope.
 */
@Injectable()
export class PackageViewSet extends BaseViewSet<Package> {
  constructor(private readonly em: EntityManager) {
    super();
  }

  override async list(exchange: Exchange): Promise<Package[]> {
    return this.em.fork().find(PackageSchema, { organizationId: organizationOf(exchange) }, { orderBy: { id: 'asc' } });
  }

  override async retrieve(exchange: Exchange, id: string): Promise<Package | null> {
    const key = parseTodoId(id);
    if (key === null) return null;
    return this.em.fork().findOne(PackageSchema, { id: key, organizationId: organizationOf(exchange) });
  }

  override async create(exchange: Exchange): Promise<Package> {
    const em = this.em.fork();
    const principal = getIdentityContext(exchange)!.principal;
    const pkg = em.create(PackageSchema, {
      organizationId: organizationOf(exchange),
      name: exchange.input<PackageInput>().name,
      publishedBy: `${principal.kind}:${principal.id}`,
      createdAt: new Date(),
    });
    try {
      await em.flush();
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) throw new ConflictException('Package name taken');
      throw error;
    }
    return pkg;
  }
}
