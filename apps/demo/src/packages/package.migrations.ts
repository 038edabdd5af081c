import { Migration, type MigrationObject } from '@tessera/database';

/** Creates the `package` table: names unique per organization, never blank. */
export class Migration20261122100000CreatePackage extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "package" ("id" serial primary key, "organization_id" uuid not null, "name" varchar(100) not null, "published_by" varchar(100) not null, "created_at" timestamptz not null, constraint "package_name_not_blank" check (length(btrim("name")) > 0), constraint "package_organization_name_unique" unique ("organization_id", "name"))`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop table "package"');
  }
}

/** The packages feature's migrations, in order. */
export const packageMigrations: MigrationObject[] = [
  { name: 'Migration20261122100000CreatePackage', class: Migration20261122100000CreatePackage },
];
