import { Migration, type MigrationObject } from '@tessera/database';

/** Creates the `todo` table; the CHECK keeps titles non-empty even for writes that skip validation. */
export class Migration20261122000000CreateTodo extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "todo" ("id" serial primary key, "title" varchar(200) not null, constraint "todo_title_not_blank" check (length(btrim("title")) > 0))`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop table "todo"');
  }
}

/** The demo's migrations, in order. */
export const todoMigrations: MigrationObject[] = [
  { name: 'Migration20261122000000CreateTodo', class: Migration20261122000000CreateTodo },
];
