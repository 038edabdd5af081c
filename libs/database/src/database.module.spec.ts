import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Body, Controller, Get, Inject, Injectable, Module, Param, Post, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { EntityManager, EntityRepository, MikroORM } from '@mikro-orm/core';
import { SqlEntityManager } from '@mikro-orm/postgresql';
import request from 'supertest';
import { NoteSchema, noteMigrations, type Note } from '../../../test/support/note-entity.fixture.js';
import { DATABASE_HANDLE, DatabaseModule } from './database.module.js';
import { InjectRepository } from './database.repositories.js';
import type { DatabaseHandle } from './mikro-orm.config.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

@Controller('notes')
class NotesController {
  constructor(
    @Inject(EntityManager) private readonly em: EntityManager,
    @InjectRepository(NoteSchema) private readonly notes: EntityRepository<Note>,
  ) {}

  @Post()
  async create(@Body() body: { title: string }): Promise<{ id: number; em: number }> {
    const note = this.notes.create({ title: body.title });
    await this.em.flush();
    return { id: note.id, em: this.em.getContext().id };
  }

  @Get(':id')
  async read(@Param('id') id: string): Promise<{ title: string; em: number; managed: number }> {
    const note = await this.notes.findOneOrFail(Number(id));
    const managed = this.em.getContext().getUnitOfWork().getIdentityMap().values().length;
    return { title: note.title, em: this.em.getContext().id, managed };
  }
}

@Module({ imports: [DatabaseModule.forFeature([NoteSchema])], controllers: [NotesController] })
class NotesModule {}

describe('DatabaseModule with Test.createTestingModule', () => {
  let testDb: TestDatabase;
  let app: INestApplication;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    const moduleRef = await Test.createTestingModule({
      imports: [
        DatabaseModule.forRoot({ url: testDb.url, entities: [NoteSchema], migrations: { list: noteMigrations } }),
        NotesModule,
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
    await testDb?.close();
  });

  it('applies the migrations before the application starts', async () => {
    const orm = app.get(MikroORM);
    const rows = await orm.em
      .fork()
      .getConnection()
      .execute<{ name: string }[]>('select name from mikro_orm_migrations');
    expect(rows).toHaveLength(noteMigrations.length);
  });

  it('serves an EntitySchema entity through a repository and the injected EntityManager', async () => {
    const created = await request(app.getHttpServer()).post('/notes').send({ title: 'from nest' }).expect(201);
    const read = await request(app.getHttpServer()).get(`/notes/${created.body.id}`).expect(200);
    expect(read.body.title).toBe('from nest');
  });

  it('forks a fresh EntityManager per request', async () => {
    const orm = app.get(MikroORM);
    const created = await request(app.getHttpServer()).post('/notes').send({ title: 'forked' }).expect(201);
    const first = await request(app.getHttpServer()).get(`/notes/${created.body.id}`).expect(200);
    const second = await request(app.getHttpServer()).get(`/notes/${created.body.id}`).expect(200);
    const ids = [created.body.em, first.body.em, second.body.em];
    expect(new Set(ids).size).toBe(3);
    expect(ids).not.toContain(orm.em.id);
    expect([first.body.managed, second.body.managed]).toEqual([1, 1]);
    expect(orm.em.getUnitOfWork(false).getIdentityMap().values()).toHaveLength(0);
  });

  it('exposes the same EntityManager under the core and the PostgreSQL tokens', () => {
    expect(app.get(SqlEntityManager)).toBe(app.get(EntityManager));
    expect(app.get(EntityManager)).toBe(app.get(MikroORM).em);
  });
});

@Injectable()
class DatabaseSettings {
  readonly url = '';
}

@Module({ providers: [DatabaseSettings], exports: [DatabaseSettings] })
class SettingsModule {}

@Module({
  imports: [
    DatabaseModule.forRootAsync({
      imports: [SettingsModule],
      inject: [DatabaseSettings],
      useFactory: (settings: DatabaseSettings) => ({
        url: settings.url, // '' forces embedded PGlite even when DATABASE_URL is set
        entities: [NoteSchema],
        migrations: { list: noteMigrations },
      }),
    }),
    NotesModule,
  ],
})
class EmbeddedAppModule {}

describe('DatabaseModule with NestFactory and embedded PGlite', () => {
  it('starts embedded PostgreSQL, serves requests, and stops it on app.close()', async () => {
    const app = await NestFactory.create(EmbeddedAppModule, { logger: false, abortOnError: false });
    const handle = app.get<DatabaseHandle>(DATABASE_HANDLE);
    try {
      await app.init();
      expect(handle.embedded).toBeDefined();
      const created = await request(app.getHttpServer()).post('/notes').send({ title: 'embedded' }).expect(201);
      const read = await request(app.getHttpServer()).get(`/notes/${created.body.id}`).expect(200);
      expect(read.body).toMatchObject({ title: 'embedded', managed: 1 });
    } finally {
      await app.close();
    }
    expect(handle.embedded!.db.closed).toBe(true);
  });
});
