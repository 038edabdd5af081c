import { IsNotEmpty, IsString, Matches, MaxLength } from 'class-validator';
import type { Serializer } from '@tessera/viewset';
import type { Package } from './package.entity.js';

/** Body of `POST /orgs/:organizationId/packages`. */
export class PackageInput {
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  @Matches(/^[a-z0-9][a-z0-9._-]*$/)
  name!: string;
}

/** `{ id, organizationId, name, publishedBy, createdAt }`. */
export const packageSerializer: Serializer<Package, PackageInput> = {
  input: PackageInput,
  toJson: (pkg) => ({
    id: pkg.id,
    organizationId: pkg.organizationId,
    name: pkg.name,
    publishedBy: pkg.publishedBy,
    createdAt: pkg.createdAt.toISOString(),
  }),
};
