import type { MigrationObject } from '@tessera/database';
import { identityEntities, identityMigrations } from '@tessera/identity-mikro-orm';
import { TodoSchema } from './todos/todo.entity.js';
import { todoMigrations } from './todos/todo.migrations.js';
import { PackageSchema } from './packages/package.entity.js';
import { packageMigrations } from './packages/package.migrations.js';

/** Every entity of the demo's database. */
export const demoEntities = [...identityEntities, TodoSchema, PackageSchema];

/** Every migration of the demo's database, in order. */
export const demoMigrations: MigrationObject[] = [...identityMigrations, ...todoMigrations, ...packageMigrations];
