import { IsNotEmpty, IsString, MaxLength, ValidateBy, type ValidationOptions } from 'class-validator';
import type { Serializer } from '@tessera/viewset';
import type { Todo } from './todo.entity.js';

/**
 * A title the database accepts: PostgreSQL text cannot hold NUL, and the `todo_title_not_blank`
 * CHECK refuses blank titles. Only non-empty strings are judged (`@IsString`/`@IsNotEmpty` report
 * the rest), so each mistake gets one message.
 */
function IsStorableTitle(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isStorableTitle',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || value === '' || storable(value),
        defaultMessage: (args) =>
          typeof args?.value === 'string' && args.value.includes('\u0000')
            ? '$property must not contain NUL characters'
            : '$property must not be only whitespace',
      },
    },
    options,
  );
}

function storable(title: string): boolean {
  return !title.includes('\u0000') && /\S/.test(title);
}

/** Body of `POST /todos` and `PUT /todos/:id` (and, with missing properties allowed, `PATCH`). */
export class TodoInput {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  @IsStorableTitle()
  title!: string;
}

/** Maps a stored todo to its JSON: `{ id, title }`. */
export const todoSerializer: Serializer<Todo, TodoInput> = {
  input: TodoInput,
  toJson: (todo) => ({ id: todo.id, title: todo.title }),
};
