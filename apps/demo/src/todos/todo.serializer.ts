import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import type { Serializer } from '@tessera/viewset';
import type { Todo } from './todo.entity.js';

/** Body of `POST /todos` and `PUT /todos/:id` (and, with missing properties allowed, `PATCH`). */
export class TodoInput {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  title!: string;
}

/** Maps a stored todo to its JSON: `{ id, title }`. */
export const todoSerializer: Serializer<Todo, TodoInput> = {
  input: TodoInput,
  toJson: (todo) => ({ id: todo.id, title: todo.title }),
};
