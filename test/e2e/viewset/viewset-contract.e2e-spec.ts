import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import request from 'supertest';
import { Router } from '@tessera/web';
import { resource, ViewSetModule } from '@tessera/viewset';
import {
  bootViewSetApp,
  FailingViewSet,
  FullViewSet,
  TodoStore,
  todoSerializer,
} from '../../support/viewset-fixtures.js';
import { HOSTS, ROWS, run } from './viewset-contract.rows.js';

afterEach(() => {
  jest.restoreAllMocks();
});

describe.each(HOSTS)('ViewSet contract through %s', (host) => {
  it.each(ROWS)('$id: $title', async (row) => {
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined); // V13 logs its 500
    const result = await run(host, row);
    expect(result).toEqual(row.expected);
    expect(JSON.stringify(result.body)).not.toContain('password');
    expect(JSON.stringify(result.body)).not.toContain('s3cret');
  });

  it("V19: rejects a prefix that declares ':id'", () => {
    const register = (): unknown =>
      host === 'resource()'
        ? resource(new Router(), '/orgs/:id/todos', new FullViewSet(new TodoStore()), todoSerializer)
        : ViewSetModule.register([{ prefix: '/orgs/:id/todos', viewSet: FullViewSet, serializer: todoSerializer }]);
    expect(register).toThrow("Prefix must not declare ':id': /orgs/:id/todos");
  });

  it('logs an unexpected error with the request id, never sending it', async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    // A pre-route middleware (identity's request id, order 100) echoes the id before the route runs.
    const app = await bootViewSetApp(host, {
      viewSet: FailingViewSet,
      middleware: [{ order: 100, middleware: (ex, next) => (ex.setHeader('x-request-id', 'req_abc'), next()) }],
    });
    const res = await request(app.getHttpServer()).post('/todos').send({ title: 'a' });
    await app.close();
    expect(res.status).toBe(500);
    const lines = logged.mock.calls.map((call) => String(call[0]));
    expect(lines.some((line) => line.includes('req_abc') && line.includes('db password=x'))).toBe(true);
  });
});

describe('V24: one ViewSet through resource() and ViewSetModule', () => {
  it('answers every row with the same status, Allow, Location and body', async () => {
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined); // V13 logs its 500
    for (const row of ROWS) {
      const [viaResource, viaModule] = [await run('resource()', row), await run('ViewSetModule', row)];
      expect({ row: `${row.id} ${row.title}`, ...viaModule }).toEqual({
        row: `${row.id} ${row.title}`,
        ...viaResource,
      });
    }
  });
});
