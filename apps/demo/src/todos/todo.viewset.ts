import { Injectable, NotFoundException } from '@nestjs/common';
import { EntityManager, LockMode } from '@mikro-orm/core';
import type { Exchange } from '@tessera/web';
import { BaseViewSet } from '@tessera/viewset';
import { TodoSchema, type Todo } from './todo.entity.js';
import type { TodoInput } from './todo.serializer.js';

/** Ids are positive 32-bit integers; anything else names no todo. */
export function parseTodoId(id: string): number | null {
  if (!/^[1-9][0-9]{0,9}$/.test(id)) return null;
  const value = Number(id);
  return value <= 2_147_483_647 ? value : null;
}

/**
 * The demo's `/todos` resource: all operations, persisted with MikroORM. Each operation works on
 * its own forked EntityManager (never the global one).
 */
@Injectable()
export class TodoViewSet extends BaseViewSet<Todo> {
  constructor(private readonly em: EntityManager) {
    super();
  }

  override async list(): Promise<Todo[]> {
    return this.em.fork().find(TodoSchema, {}, { orderBy: { id: 'asc' } });
  }

  override async create(exchange: Exchange): Promise<Todo> {
    const em = this.em.fork();
    const todo = em.create(TodoSchema, { title: exchange.input<TodoInput>().title });
    await em.flush();
    return todo;
  }

  override async retrieve(_exchange: Exchange, id: string): Promise<Todo | null> {
    const key = parseTodoId(id);
    return key === null ? null : this.em.fork().findOne(TodoSchema, { id: key });
  }

  override async update(exchange: Exchange, id: string): Promise<Todo> {
    return this.change(id, exchange.input<TodoInput>());
  }

  async partialUpdate(exchange: Exchange, id: string): Promise<Todo> {
    return this.change(id, exchange.input<Partial<TodoInput>>());
  }

  override async delete(_exchange: Exchange, id: string): Promise<boolean> {
    const key = parseTodoId(id);
    if (key === null) return false;
    return (await this.em.fork().nativeDelete(TodoSchema, { id: key })) === 1;
  }

  private async change(id: string, input: Partial<TodoInput>): Promise<Todo> {
    const key = parseTodoId(id);
    if (key === null) throw new NotFoundException();
    return this.em.fork().transactional(async (em) => {
      const todo = await em.findOne(TodoSchema, { id: key }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (todo === null) throw new NotFoundException();
      if (input.title !== undefined) todo.title = input.title;
      return todo;
    });
  }
}

/**
 * A read-only view of the same todos at `/todo-feed`: only `list` and `retrieve` are implemented,
 * so writes answer 405 with `Allow: GET, HEAD`.
 */
@Injectable()
export class TodoFeedViewSet extends BaseViewSet<Todo> {
  constructor(private readonly todos: TodoViewSet) {
    super();
  }

  override list(): Promise<Todo[]> {
    return this.todos.list();
  }

  override retrieve(exchange: Exchange, id: string): Promise<Todo | null> {
    return this.todos.retrieve(exchange, id);
  }
}
