import { MethodNotAllowedException } from '@nestjs/common';
import type { Exchange } from '@tessera/web';

/**
 * The operations of a resource (web-and-viewset §7.1). Each one answers one route of §7.4; the
 * ViewSet layer turns its result into the response, so an operation never touches the response.
 *
 * @example
 * class TodoViewSet implements ViewSet<Todo> {
 *   async list() { return store.all(); }
 *   async create(ex: Exchange) { return store.add(ex.input<TodoInput>()); }
 *   async retrieve(_ex: Exchange, id: string) { return store.find(Number(id)); }
 *   async update(ex: Exchange, id: string) { return store.replace(Number(id), ex.input<TodoInput>()); }
 *   async delete(_ex: Exchange, id: string) { return store.remove(Number(id)); }
 * }
 */
export interface ViewSet<T> {
  /** GET `{prefix}`: every item (200, `[]` when empty). */
  list(exchange: Exchange): Promise<T[]>;
  /** POST `{prefix}`: the created model (201 + `Location`); `exchange.input()` holds the validated DTO. */
  create(exchange: Exchange): Promise<T>;
  /** GET `{prefix}/:id`: the model, or `null` for 404. `id` is the decoded segment. */
  retrieve(exchange: Exchange, id: string): Promise<T | null>;
  /** PUT `{prefix}/:id`: the replaced model; throw `NotFoundException` for 404. */
  update(exchange: Exchange, id: string): Promise<T>;
  /** DELETE `{prefix}/:id`: `true` when deleted (204), `false` when absent (404). */
  delete(exchange: Exchange, id: string): Promise<boolean>;
  /** PATCH `{prefix}/:id` (extension): validated with missing properties allowed. */
  partialUpdate?(exchange: Exchange, id: string): Promise<T>;
}

/**
 * The name of a ViewSet operation.
 *
 * @example
 * const readOnly: ViewSetOperation[] = ['list', 'retrieve'];
 */
export type ViewSetOperation = 'list' | 'create' | 'retrieve' | 'update' | 'delete' | 'partialUpdate';

/**
 * A ViewSet whose five operations all answer 405 (web-and-viewset §7.2): override the ones the
 * resource supports. `retrieve` is no exception (an unimplemented retrieve is 405, never 404), and
 * `partialUpdate` is not defined here: define it to serve PATCH.
 *
 * @example
 * @Injectable()
 * class ReadOnlyTodos extends BaseViewSet<Todo> {
 *   constructor(private readonly store: TodoStore) { super(); }
 *   override async list() { return this.store.all(); }
 * }
 */
export abstract class BaseViewSet<T> implements ViewSet<T> {
  async list(_exchange: Exchange): Promise<T[]> {
    throw new MethodNotAllowedException();
  }

  async create(_exchange: Exchange): Promise<T> {
    throw new MethodNotAllowedException();
  }

  async retrieve(_exchange: Exchange, _id: string): Promise<T | null> {
    throw new MethodNotAllowedException();
  }

  async update(_exchange: Exchange, _id: string): Promise<T> {
    throw new MethodNotAllowedException();
  }

  async delete(_exchange: Exchange, _id: string): Promise<boolean> {
    throw new MethodNotAllowedException();
  }
}

const BASE_OPERATIONS: ReadonlySet<ViewSetOperation> = new Set(['list', 'create', 'retrieve', 'update', 'delete']);

/**
 * Whether `viewSet` implements `operation` (web-and-viewset §7.2): a `BaseViewSet` subclass must
 * override it; any other object must have it as a function. `partialUpdate` counts when defined.
 *
 * @example
 * isImplemented(new ReadOnlyTodos(store), 'list');   // true
 * isImplemented(new ReadOnlyTodos(store), 'delete'); // false
 */
export function isImplemented(viewSet: object, operation: ViewSetOperation): boolean {
  const member = (viewSet as Record<string, unknown>)[operation];
  if (typeof member !== 'function') return false;
  if (viewSet instanceof BaseViewSet && BASE_OPERATIONS.has(operation)) {
    return member !== (BaseViewSet.prototype as unknown as Record<string, unknown>)[operation];
  }
  return true;
}
