import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** `Package { id, organizationId, name, publishedBy, createdAt }`: a package an organization published. */
export const PackageSchema = defineEntity({
  name: 'Package',
  tableName: 'package',
  properties: (p) => ({
    id: p.integer().primary().autoincrement(),
    organizationId: p.uuid(),
    name: p.string().length(100),
    publishedBy: p.string().length(100),
    createdAt: p.datetime(),
  }),
});

export type Package = InferEntity<typeof PackageSchema>;
