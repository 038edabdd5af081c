import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** `Todo { id: int, title: string }` in the demo's database (PGlite by default). */
export const TodoSchema = defineEntity({
  name: 'Todo',
  tableName: 'todo',
  properties: (p) => ({
    id: p.integer().primary().autoincrement(),
    title: p.string().length(200),
  }),
});

export type Todo = InferEntity<typeof TodoSchema>;
