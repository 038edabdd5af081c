import {
  ConflictException,
  Injectable,
  Module,
  NotFoundException,
  type DynamicModule,
  type INestApplication,
  type Type,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { IsString } from 'class-validator';
import { Router, RouterModule, type Exchange, type PipelineMiddlewareContribution } from '@tessera/web';
import {
  BaseViewSet,
  resource,
  ViewSetModule,
  type Serializer,
  type ViewSet,
  type ViewSetEntry,
} from '@tessera/viewset';

/** The demo's model, plus a field that must never reach a response (only `toJson` output does). */
export interface Todo {
  id: number;
  title: string;
  ownerSecret: string;
}

export class TodoInput {
  @IsString()
  title!: string;
}

export const todoSerializer: Serializer<Todo, TodoInput> = {
  input: TodoInput,
  toJson: (todo) => ({ id: todo.id, title: todo.title }),
};

/** In-memory persistence injected into every ViewSet below (constructor injection on both paths). */
@Injectable()
export class TodoStore {
  private readonly items = new Map<number, Todo>();
  private nextId = 7;

  constructor(seed: readonly Pick<Todo, 'id' | 'title'>[] = []) {
    for (const todo of seed) this.items.set(todo.id, { ...todo, ownerSecret: 's3cret' });
  }

  all(): Todo[] {
    return [...this.items.values()];
  }

  add(title: string): Todo {
    const todo = { id: this.nextId++, title, ownerSecret: 's3cret' };
    this.items.set(todo.id, todo);
    return todo;
  }

  find(id: string): Todo | null {
    return this.items.get(Number(id)) ?? null;
  }

  replace(id: string, title: string): Todo | null {
    const todo = this.find(id);
    if (todo === null) return null;
    todo.title = title;
    return todo;
  }

  remove(id: string): boolean {
    return this.items.delete(Number(id));
  }
}

/** list + create only (V1, V2, V6–V11, V17, V21, V23, V24). */
@Injectable()
export class ListCreateViewSet extends BaseViewSet<Todo> {
  constructor(private readonly store: TodoStore) {
    super();
  }

  override async list(): Promise<Todo[]> {
    return this.store.all();
  }

  override async create(exchange: Exchange): Promise<Todo> {
    return this.store.add(exchange.input<TodoInput>().title);
  }
}

/** A BaseViewSet with nothing overridden (V3, V12). */
@Injectable()
export class NothingViewSet extends BaseViewSet<Todo> {}

/** Every operation but partialUpdate, without extending BaseViewSet (V4, V5, V14, V15, V18). */
@Injectable()
export class FullViewSet implements ViewSet<Todo> {
  constructor(protected readonly store: TodoStore) {}

  async list(): Promise<Todo[]> {
    return this.store.all();
  }

  async create(exchange: Exchange): Promise<Todo> {
    return this.store.add(exchange.input<TodoInput>().title);
  }

  async retrieve(_exchange: Exchange, id: string): Promise<Todo | null> {
    return this.store.find(id);
  }

  async update(exchange: Exchange, id: string): Promise<Todo> {
    const todo = this.store.replace(id, exchange.input<TodoInput>().title);
    if (todo === null) throw new NotFoundException();
    return todo;
  }

  async delete(_exchange: Exchange, id: string): Promise<boolean> {
    return this.store.remove(id);
  }
}

/** FullViewSet plus PATCH (V16). */
@Injectable()
export class PatchViewSet extends FullViewSet {
  async partialUpdate(exchange: Exchange, id: string): Promise<Todo> {
    const input = exchange.input<Partial<TodoInput>>();
    const todo = this.store.find(id);
    if (todo === null) throw new NotFoundException();
    if (input.title !== undefined) todo.title = input.title;
    return todo;
  }
}

/** Echoes the decoded id and the prefix parameter it was called with (V20). */
@Injectable()
export class EchoViewSet extends BaseViewSet<Todo> {
  override async retrieve(exchange: Exchange, id: string): Promise<Todo> {
    return { id: 0, title: `${exchange.pathParam('org') ?? ''}|${id}`, ownerSecret: 's3cret' };
  }
}

/** Operations that fail (V13, V22). */
@Injectable()
export class FailingViewSet extends BaseViewSet<Todo> {
  override async list(): Promise<Todo[]> {
    throw new ConflictException('taken');
  }

  override async create(): Promise<Todo> {
    throw new Error('db password=x');
  }
}

/** One app configuration of the contract suite. */
export interface ViewSetSetup {
  viewSet: Type<ViewSet<Todo>>;
  /** @default '/todos' */
  prefix?: string;
  seed?: Pick<Todo, 'id' | 'title'>[];
  bodyLimitBytes?: number;
  /** Pre-route middleware of a RouterModule in the app (the ViewSetModule app then mounts one too). */
  middleware?: PipelineMiddlewareContribution[];
}

/** The two ways to serve a ViewSet; the contract suite runs every row against both. */
export type ViewSetHost = 'resource()' | 'ViewSetModule';

function storeModule(seed: ViewSetSetup['seed']): DynamicModule {
  @Module({})
  class TodoStoreModule {}
  return {
    module: TodoStoreModule,
    providers: [{ provide: TodoStore, useValue: new TodoStore(seed) }],
    exports: [TodoStore],
  };
}

/** Boots a real Nest app serving `setup` at its prefix through `host`. */
export async function bootViewSetApp(host: ViewSetHost, setup: ViewSetSetup): Promise<INestApplication> {
  const prefix = setup.prefix ?? '/todos';
  const entry: ViewSetEntry<Todo> = { prefix, viewSet: setup.viewSet, serializer: todoSerializer };
  let root: DynamicModule;
  if (host === 'resource()') {
    @Module({ imports: [storeModule(setup.seed)], providers: [setup.viewSet], exports: [setup.viewSet] })
    class ViewSetHostModule {}
    root = RouterModule.forRoot({
      imports: [ViewSetHostModule],
      middleware: setup.middleware ?? [],
      // Under RouterModule the dispatching (merged) router's limit applies to resource() bodies.
      options: setup.bodyLimitBytes === undefined ? {} : { bodyLimitBytes: setup.bodyLimitBytes },
      routers: [
        {
          inject: [setup.viewSet],
          useFactory: (viewSet: ViewSet<Todo>) => resource(new Router(), prefix, viewSet, todoSerializer),
        },
      ],
    });
  } else {
    root = ViewSetModule.register([entry], {
      imports: [storeModule(setup.seed)],
      bodyLimitBytes: setup.bodyLimitBytes,
    });
  }
  const imports =
    host === 'ViewSetModule' && setup.middleware !== undefined
      ? [RouterModule.forRoot({ middleware: setup.middleware }), root]
      : [root];
  const moduleRef = await Test.createTestingModule({ imports }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return app;
}
