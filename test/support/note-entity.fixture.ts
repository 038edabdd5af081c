/**
 * A minimal `defineEntity` entity and its migrations, used by the `@tessera/database` specs (and by
 * anyone needing a throw-away table in a test): callers hand both to `openDatabase`/`DatabaseModule`.
 */
import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { Migration, type MigrationObject } from '@tessera/database';

export const NoteSchema = defineEntity({
  name: 'Note',
  tableName: 'note',
  properties: (p) => ({
    id: p.integer().primary().autoincrement(),
    title: p.string().length(200),
    counter: p.integer().default(0),
  }),
});

export type Note = InferEntity<typeof NoteSchema>;

export class Migration20250101000000CreateNote extends Migration {
  override async up(): Promise<void> {
    this.addSql('create table "note" ("id" serial primary key, "title" varchar(200) not null)');
  }

  override async down(): Promise<void> {
    this.addSql('drop table "note"');
  }
}

export class Migration20250102000000AddNoteCounter extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "note" add column "counter" int not null default 0');
  }

  override async down(): Promise<void> {
    this.addSql('alter table "note" drop column "counter"');
  }
}

/** Both migrations, in order, as `migrations.list` expects them. */
export const noteMigrations: MigrationObject[] = [
  { name: 'Migration20250101000000CreateNote', class: Migration20250101000000CreateNote },
  { name: 'Migration20250102000000AddNoteCounter', class: Migration20250102000000AddNoteCounter },
];
