import { Inject, type Provider } from '@nestjs/common';
import { EntityManager, EntitySchema, MetadataStorage, Utils, type AnyEntity, type EntityClass } from '@mikro-orm/core';

/** An entity that can get a repository provider: an `EntitySchema`/`defineEntity` result or an entity class. */
export type RepositoryEntity = EntitySchema<any, any> | EntityClass<AnyEntity>;

/**
 * Injection token of the repository of `entity`: `<EntityName>Repository`, the same string
 * `@mikro-orm/nestjs` uses, so code written against either resolves the same provider.
 *
 * @example
 * moduleRef.get(getRepositoryToken(NoteSchema)); // 'NoteRepository'
 */
export function getRepositoryToken(entity: RepositoryEntity | string): string {
  return `${Utils.className(entity)}Repository`;
}

/**
 * Injects the repository of `entity` (provided by `DatabaseModule.forFeature`).
 *
 * @example
 * constructor(@InjectRepository(NoteSchema) private readonly notes: EntityRepository<Note>) {}
 */
export function InjectRepository(entity: RepositoryEntity | string): PropertyDecorator & ParameterDecorator {
  return Inject(getRepositoryToken(entity));
}

/** Providers of the repositories of `entities` (plus their custom repository classes, if declared). */
export function repositoryProviders(entities: RepositoryEntity[]): Provider[] {
  const providers: Provider[] = [];
  for (const entity of entities) {
    const factory = { useFactory: (em: EntityManager) => em.getRepository(entity), inject: [EntityManager] };
    providers.push({ provide: getRepositoryToken(entity), ...factory });
    const custom = customRepository(entity);
    if (custom) providers.push({ provide: custom, ...factory });
  }
  return providers;
}

function customRepository(entity: RepositoryEntity): (abstract new (...args: any[]) => unknown) | undefined {
  const meta =
    entity instanceof EntitySchema
      ? entity.meta
      : Object.values(MetadataStorage.getMetadata()).find((candidate) => candidate.class === entity);
  return meta?.repository?.() as (abstract new (...args: any[]) => unknown) | undefined;
}
