import { Injectable, Module, NotFoundException, type INestApplication, type LoggerService } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { defineEntity, EntityManager, type InferEntity } from '@mikro-orm/core';
import { IsString, ValidateNested, IsOptional, IsObject } from 'class-validator';
import { Type } from 'class-transformer';
import { DatabaseModule, EMBEDDED_POOL, Migration, type MigrationObject } from '@tessera/database';
import { Router, RouterModule, type Exchange } from '@tessera/web';
import { BaseViewSet, resource, ViewSetModule, type Serializer } from '@tessera/viewset';
import { TodoSchema } from '../../../apps/demo/src/todos/todo.entity.js';
import { todoMigrations } from '../../../apps/demo/src/todos/todo.migrations.js';
import { TodosModule } from '../../../apps/demo/src/todos/todos.module.js';

/** A label with a unique name; its DTO checks no more than `@IsString()`, so the database judges the rest. */
export const LabelSchema = defineEntity({
  name: 'Label',
  tableName: 'label',
  properties: (p) => ({
    id: p.integer().primary().autoincrement(),
    name: p.string().length(100).unique(),
  }),
});

export type Label = InferEntity<typeof LabelSchema>;

class CreateLabel extends Migration {
  override async up(): Promise<void> {
    this.addSql('create table "label" ("id" serial primary key, "name" varchar(100) not null unique)');
  }
}

const migrations: MigrationObject[] = [
  ...todoMigrations,
  { name: 'Migration20261125000000CreateLabel', class: CreateLabel },
];

export class LabelStyle {
  @IsString()
  color!: string;
}

export class LabelInput {
  @IsString()
  name!: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => LabelStyle)
  style?: LabelStyle;

  @IsOptional()
  @IsObject()
  meta?: Record<string, unknown>;
}

export const labelSerializer: Serializer<Label, LabelInput> = {
  input: LabelInput,
  toJson: (label) => ({ id: label.id, name: label.name }),
};

/** list, create, retrieve and update over MikroORM: database failures escape it unhandled. */
@Injectable()
export class LabelViewSet extends BaseViewSet<Label> {
  constructor(private readonly em: EntityManager) {
    super();
  }

  override list(): Promise<Label[]> {
    return this.em.fork().find(LabelSchema, {}, { orderBy: { id: 'asc' } });
  }

  override async create(exchange: Exchange): Promise<Label> {
    const em = this.em.fork();
    const label = em.create(LabelSchema, { name: exchange.input<LabelInput>().name });
    await em.flush();
    return label;
  }

  override retrieve(_exchange: Exchange, id: string): Promise<Label | null> {
    return this.em.fork().findOne(LabelSchema, { id: Number(id) || 0 });
  }

  override async update(exchange: Exchange, id: string): Promise<Label> {
    const em = this.em.fork();
    const label = await em.findOne(LabelSchema, { id: Number(id) || 0 });
    if (label === null) throw new NotFoundException();
    label.name = exchange.input<LabelInput>().name;
    await em.flush();
    return label;
  }
}

@Module({ providers: [LabelViewSet], exports: [LabelViewSet] })
class LabelModule {}

/** Where the two mount styles serve the labels. */
export const MOUNTS = { ViewSetModule: '/labels', 'resource()': '/radix-labels' } as const;

/**
 * An app on `databaseUrl` serving labels through both mount styles (`/labels` generated controller,
 * `/radix-labels` radix routes) and the demo's `/todos`; client-side deadlines are short so a
 * database that stops answering fails requests within about a second.
 */
export async function bootLabelApp(
  databaseUrl: string,
  embedded: boolean,
  logger: LoggerService | false = false,
): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      DatabaseModule.forRoot({
        url: databaseUrl,
        entities: [LabelSchema, TodoSchema],
        migrations: { list: migrations },
        pool: { ...(embedded ? EMBEDDED_POOL : {}), acquireTimeoutMillis: 1000 },
        mikroOrm: { driverOptions: { connection: { query_timeout: 1000, connectionTimeoutMillis: 1000 } } },
      }),
      ViewSetModule.register([{ prefix: MOUNTS.ViewSetModule, viewSet: LabelViewSet, serializer: labelSerializer }]),
      RouterModule.forRoot({
        imports: [LabelModule],
        routers: [
          {
            inject: [LabelViewSet],
            useFactory: (labels: LabelViewSet) => resource(new Router(), MOUNTS['resource()'], labels, labelSerializer),
          },
        ],
      }),
      TodosModule,
    ],
  }).compile();
  const app = moduleRef.createNestApplication({ logger });
  await app.init();
  return app;
}
