import { afterEach, describe, expect, it } from '@jest/globals';
import { Agent, get, type IncomingMessage } from 'node:http';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { ManagementListener, ManagementListenerError } from './management-listener.js';
import { Router } from './router/router.js';

/** GET on 127.0.0.1:`port`, bounded: status and body. */
function fetchLocal(port: number, path: string, agent?: Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = get({ host: '127.0.0.1', port, path, agent, timeout: 5000 }, (res: IncomingMessage) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', reject);
  });
}

const router = () =>
  new Router()
    .get('/live', (exchange) => exchange.respond({ body: { status: 'live' } }))
    .get('/boom', () => {
      throw new Error('db password=hunter2 leaked?');
    });

describe('ManagementListener', () => {
  const listeners: ManagementListener[] = [];
  const blockers: Server[] = [];

  afterEach(async () => {
    await Promise.all(listeners.splice(0).map((listener) => listener.onApplicationShutdown()));
    await Promise.all(blockers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  async function started(): Promise<{ listener: ManagementListener; port: number }> {
    const listener = new ManagementListener();
    listeners.push(listener);
    await listener.start({ port: 0, host: '127.0.0.1' }, router());
    return { listener, port: listener.address()!.port };
  }

  it('serves its routes on the bound port and answers 404 for anything else', async () => {
    const { port } = await started();
    expect(port).toBeGreaterThan(0);
    expect(await fetchLocal(port, '/live')).toEqual({ status: 200, body: '{"status":"live"}' });
    expect((await fetchLocal(port, '/identity/v1/me')).status).toBe(404);
  });

  it('answers a failing route with a generic 500 that carries no exception text', async () => {
    const { port } = await started();
    const answer = await fetchLocal(port, '/boom');
    expect(answer.status).toBe(500);
    expect(answer.body).not.toContain('hunter2');
  });

  it('fails to start with an error naming the address and EADDRINUSE when the port is taken', async () => {
    const blocker = createServer();
    blockers.push(blocker);
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    const listener = new ManagementListener();
    const failure = listener.start({ port, host: '127.0.0.1' }, router());
    await expect(failure).rejects.toBeInstanceOf(ManagementListenerError);
    await expect(failure).rejects.toThrow(`management listener cannot listen on 127.0.0.1:${port}: EADDRINUSE`);
    expect(listener.address()).toBeUndefined();
  });

  it('refuses a port outside 0..65535', async () => {
    await expect(new ManagementListener().start({ port: 70000 }, router())).rejects.toThrow(
      'management port must be an integer from 0 to 65535',
    );
  });

  it('closes at shutdown even with a keep-alive connection open, then refuses connections', async () => {
    const { listener, port } = await started();
    const agent = new Agent({ keepAlive: true });
    expect((await fetchLocal(port, '/live', agent)).status).toBe(200);
    await listener.onApplicationShutdown();
    expect(listener.address()).toBeUndefined();
    await expect(fetchLocal(port, '/live')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    agent.destroy();
  });
});
