import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

/** Connects through the proxy; resolves with the socket, or rejects with the connection error. */
function connect(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Writes `text` and resolves with what comes back within `ms`, `undefined` if nothing does. */
function roundTrip(socket: Socket, text: string, ms = 1000): Promise<string | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    socket.once('data', (chunk) => {
      clearTimeout(timer);
      resolve(chunk.toString());
    });
    socket.write(text);
  });
}

describe('startTcpProxy', () => {
  let echo: Server;
  let proxy: TcpProxy;

  beforeAll(async () => {
    echo = createServer((socket) => socket.on('data', (chunk) => socket.write(chunk)).on('error', () => undefined));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    const { port } = echo.address() as { port: number };
    proxy = await startTcpProxy(`postgres://user@127.0.0.1:${port}/db`);
  });
  afterAll(async () => {
    await proxy?.close();
    await new Promise<void>((resolve) => echo.close(() => resolve()));
  });

  it('forwards both ways and rewrites the URL to its own address', async () => {
    expect(proxy.url).toBe(`postgres://user@127.0.0.1:${proxy.port}/db`);
    const socket = await connect(proxy.port);
    expect(await roundTrip(socket, 'ping')).toBe('ping');
    socket.destroy();
  });

  it('holds every byte while frozen and delivers them after the thaw', async () => {
    const socket = await connect(proxy.port);
    proxy.freeze();
    const answer = roundTrip(socket, 'held', 3000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const late = await connect(proxy.port);
    expect(await roundTrip(late, 'late', 200)).toBeUndefined();
    proxy.thaw();
    expect(await answer).toBe('held');
    socket.destroy();
    late.destroy();
  });

  it('refuses new connections and cuts open ones when stopped, and serves again on the same port after restart', async () => {
    const socket = await connect(proxy.port);
    const cut = new Promise((resolve) => socket.once('close', resolve));
    await proxy.stop();
    await cut;
    await expect(connect(proxy.port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(proxy.connections()).toBe(0);
    await proxy.restart();
    const again = await connect(proxy.port);
    expect(await roundTrip(again, 'back')).toBe('back');
    again.destroy();
  });
});
