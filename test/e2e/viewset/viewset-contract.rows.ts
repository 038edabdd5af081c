import request, { type Response } from 'supertest';
import {
  bootViewSetApp,
  EchoViewSet,
  FailingViewSet,
  FullViewSet,
  ListCreateViewSet,
  NothingViewSet,
  PatchViewSet,
  type ViewSetHost,
  type ViewSetSetup,
} from '../../support/viewset-fixtures.js';

/*
 * The ViewSet contract table (V1–V23): every row runs through both hosts, `resource()` on a
 * RouterModule router and `ViewSetModule` controllers (viewset-contract.e2e-spec.ts).
 */

/** A supertest agent on one booted app. */
export type Agent = ReturnType<typeof request>;

/** What the contract compares between the two paths: status, `Allow`, `Location` and body. */
export interface Observed {
  status: number;
  allow: string | undefined;
  location: string | undefined;
  body: unknown;
}

/** One contract row: the ViewSet setup, the request, and what both hosts must answer. */
export interface Row {
  id: string;
  title: string;
  setup: ViewSetSetup;
  send: (agent: Agent) => Promise<Response>;
  expected: Observed;
}

export const HOSTS: ViewSetHost[] = ['resource()', 'ViewSetModule'];
const NOT_ALLOWED = { statusCode: 405, message: 'Method Not Allowed' };
const NOT_FOUND = { statusCode: 404, message: 'Not Found' };
export const TOO_LARGE = { statusCode: 400, message: 'Payload Too Large', error: 'Bad Request' };
const invalid = (...message: string[]) => ({ statusCode: 400, message, error: 'Bad Request' });
export const seeded = [{ id: 1, title: 'first' }];

function observed(status: number, body: unknown, headers: { allow?: string; location?: string } = {}): Observed {
  return { status, allow: headers.allow, location: headers.location, body };
}

function observe(res: Response): Observed {
  const text = res.text ?? '';
  const json = String(res.headers['content-type'] ?? '').startsWith('application/json') && text !== '';
  return {
    status: res.status,
    allow: res.headers['allow'],
    location: res.headers['location'],
    body: json ? JSON.parse(text) : text,
  };
}

const json = (agent: Agent, method: 'post' | 'put' | 'patch', path: string, body: string, type = 'application/json') =>
  agent[method](path).set('content-type', type).send(body);

export const ROWS: Row[] = [
  {
    id: 'V1',
    title: 'GET on an item of a list+create ViewSet is 405 with an empty Allow',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => a.get('/todos/1'),
    expected: observed(405, NOT_ALLOWED, { allow: '' }),
  },
  {
    id: 'V2',
    title: 'DELETE on the collection lists the implemented collection methods',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => a.delete('/todos'),
    expected: observed(405, NOT_ALLOWED, { allow: 'GET, HEAD, POST' }),
  },
  {
    id: 'V3',
    title: 'an unimplemented retrieve is 405, never 404',
    setup: { viewSet: NothingViewSet },
    send: (a) => a.get('/todos/1'),
    expected: observed(405, NOT_ALLOWED, { allow: '' }),
  },
  {
    id: 'V4',
    title: 'a retrieve resolving null is 404',
    setup: { viewSet: FullViewSet },
    send: (a) => a.get('/todos/9'),
    expected: observed(404, NOT_FOUND),
  },
  {
    id: 'R16',
    title: 'a malformed percent-encoded id is 400 before the ViewSet runs',
    setup: { viewSet: FullViewSet, seed: seeded },
    send: (a) => a.get('/todos/%zz'),
    expected: observed(400, { statusCode: 400, message: 'Malformed percent-encoding in path', error: 'Bad Request' }),
  },
  {
    id: 'V5',
    title: 'a delete resolving true is 204 with an empty body',
    setup: { viewSet: FullViewSet, seed: seeded },
    send: (a) => a.delete('/todos/1'),
    expected: observed(204, ''),
  },
  {
    id: 'V5',
    title: 'a delete resolving false is 404',
    setup: { viewSet: FullViewSet },
    send: (a) => a.delete('/todos/1'),
    expected: observed(404, NOT_FOUND),
  },
  {
    id: 'V6',
    title: 'create answers 201 with toJson output and Location',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => json(a, 'post', '/todos', '{"title":"a"}'),
    expected: observed(201, { id: 7, title: 'a' }, { location: '/todos/7' }),
  },
  {
    id: 'V7',
    title: 'a body failing validation is 400 in ValidationPipe format',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => json(a, 'post', '/todos', '{"title":5}'),
    expected: observed(400, invalid('title must be a string')),
  },
  {
    id: 'V8',
    title: 'an unknown property is 400',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => json(a, 'post', '/todos', '{"title":"a","x":1}'),
    expected: observed(400, invalid('property x should not exist')),
  },
  {
    id: 'V9',
    title: 'malformed JSON is 400 Malformed JSON body',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => json(a, 'post', '/todos', '{'),
    expected: observed(400, { statusCode: 400, message: 'Malformed JSON body', error: 'Bad Request' }),
  },
  {
    id: 'V10',
    title: 'a text/plain body is 415',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => json(a, 'post', '/todos', 'title=a', 'text/plain'),
    expected: observed(415, { statusCode: 415, message: 'Unsupported Media Type' }),
  },
  {
    id: 'V11',
    title: 'a JSON array body is 400',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => json(a, 'post', '/todos', '[]'),
    expected: observed(400, invalid('Validation failed (object is expected)')),
  },
  {
    id: 'V12',
    title: 'an unimplemented create is 405 before validation',
    setup: { viewSet: NothingViewSet },
    send: (a) => json(a, 'post', '/todos', '{"title":5,"x":1}'),
    expected: observed(405, NOT_ALLOWED, { allow: '' }),
  },
  {
    id: 'V13',
    title: 'an unexpected error is 500 without its message',
    setup: { viewSet: FailingViewSet },
    send: (a) => json(a, 'post', '/todos', '{"title":"a"}'),
    expected: observed(500, { statusCode: 500, message: 'Internal server error' }),
  },
  {
    id: 'V14',
    title: 'update throwing NotFoundException is 404',
    setup: { viewSet: FullViewSet },
    send: (a) => json(a, 'put', '/todos/9', '{"title":"b"}'),
    expected: observed(404, { statusCode: 404, message: 'Not Found' }),
  },
  {
    id: 'V15',
    title: 'PATCH without partialUpdate is 405 listing the implemented item methods',
    setup: { viewSet: FullViewSet, seed: seeded },
    send: (a) => json(a, 'patch', '/todos/1', '{"title":"b"}'),
    expected: observed(405, NOT_ALLOWED, { allow: 'GET, HEAD, PUT, DELETE' }),
  },
  {
    id: 'V16',
    title: 'PATCH with an empty object is 200 (missing properties allowed)',
    setup: { viewSet: PatchViewSet, seed: seeded },
    send: (a) => json(a, 'patch', '/todos/1', '{}'),
    expected: observed(200, { id: 1, title: 'first' }),
  },
  {
    id: 'V17',
    title: 'a prefix with a trailing slash is normalised',
    setup: { viewSet: ListCreateViewSet, prefix: '/todos/', seed: seeded },
    send: (a) => a.get('/todos'),
    expected: observed(200, [{ id: 1, title: 'first' }]),
  },
  {
    id: 'V18',
    title: 'a deeper path falls through to Nest 404',
    setup: { viewSet: FullViewSet, seed: seeded },
    send: (a) => a.get('/todos/1/extra'),
    expected: observed(404, { message: 'Cannot GET /todos/1/extra', error: 'Not Found', statusCode: 404 }),
  },
  {
    id: 'V20',
    title: 'retrieve receives the decoded id',
    setup: { viewSet: EchoViewSet },
    send: (a) => a.get('/todos/a%20b'),
    expected: observed(200, { id: 0, title: '|a b' }),
  },
  {
    id: 'V21',
    title: 'an empty list is 200 []',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => a.get('/todos'),
    expected: observed(200, []),
  },
  {
    id: 'V22',
    title: 'an HttpException passes through unchanged',
    setup: { viewSet: FailingViewSet },
    send: (a) => a.get('/todos'),
    expected: observed(409, { message: 'taken', error: 'Conflict', statusCode: 409 }),
  },
  {
    id: 'V23',
    title: 'HEAD on the collection is 200 without a body',
    setup: { viewSet: ListCreateViewSet, seed: seeded },
    send: (a) => a.head('/todos'),
    expected: observed(200, ''),
  },
  {
    id: 'V24',
    title: 'OPTIONS on the collection is 405 with the collection Allow',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => a.options('/todos'),
    expected: observed(405, NOT_ALLOWED, { allow: 'GET, HEAD, POST' }),
  },
  {
    id: 'V24',
    title: 'POST on an item is 405 with the (empty) item Allow',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => json(a, 'post', '/todos/1', '{"title":"a"}'),
    expected: observed(405, NOT_ALLOWED, { allow: '' }),
  },
  {
    id: '7.5',
    title: 'HEAD on an unimplemented retrieve is 405',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => a.head('/todos/1'),
    expected: observed(405, '', { allow: '' }),
  },
  {
    id: '7.3',
    title: 'a body that is JSON null is 400',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => json(a, 'post', '/todos', 'null'),
    expected: observed(400, invalid('Validation failed (object is expected)')),
  },
  {
    id: '5.2',
    title: 'an empty JSON body is malformed',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => json(a, 'post', '/todos', ''),
    expected: observed(400, { statusCode: 400, message: 'Malformed JSON body', error: 'Bad Request' }),
  },
  {
    id: '5.2',
    title: 'a JSON body in another charset is 415',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => json(a, 'post', '/todos', '{"title":"a"}', 'application/json; charset=latin1'),
    expected: observed(415, { statusCode: 415, message: 'Unsupported Media Type' }),
  },
  {
    id: '7.4',
    title: 'a body over the limit is 400 Payload Too Large, never 413',
    setup: { viewSet: ListCreateViewSet, bodyLimitBytes: 64 },
    send: (a) => json(a, 'post', '/todos', JSON.stringify({ title: 'x'.repeat(100) })),
    expected: observed(400, TOO_LARGE),
  },
  {
    id: '7.4',
    title: 'a body over the default 1 MiB limit is 400 Payload Too Large',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => json(a, 'post', '/todos', JSON.stringify({ title: 'x'.repeat(1024 * 1024) })),
    expected: observed(400, TOO_LARGE),
  },
  {
    id: '7.4',
    title: "a 200 kB body is read under the ViewSet limit, not Nest's 100 kB",
    setup: { viewSet: ListCreateViewSet },
    send: (a) => json(a, 'post', '/todos', JSON.stringify({ title: 'y'.repeat(200 * 1024) })),
    expected: observed(201, { id: 7, title: 'y'.repeat(200 * 1024) }, { location: '/todos/7' }),
  },
  {
    id: '7.4',
    title: 'a prefix parameter and the id reach the ViewSet decoded',
    setup: { viewSet: EchoViewSet, prefix: '/orgs/:org/todos' },
    send: (a) => a.get('/orgs/acme%20co/todos/a%2Fb'),
    expected: observed(200, { id: 0, title: 'acme co|a/b' }),
  },
  {
    id: '7.4',
    title: 'an item created under a prefix parameter gets an encoded Location on the request path',
    setup: { viewSet: ListCreateViewSet, prefix: '/orgs/:org/todos' },
    send: (a) => json(a, 'post', '/orgs/a%20b/todos/', '{"title":"a"}'),
    expected: observed(201, { id: 7, title: 'a' }, { location: '/orgs/a%20b/todos/7' }),
  },
];

/** Boots `row.setup` on `host`, sends the row's request and observes the answer. */
export async function run(host: ViewSetHost, row: Row): Promise<Observed> {
  const app = await bootViewSetApp(host, row.setup);
  try {
    return observe(await row.send(request(app.getHttpServer())));
  } finally {
    await app.close();
  }
}
