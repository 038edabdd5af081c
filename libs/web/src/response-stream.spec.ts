import { describe, expect, it } from '@jest/globals';
import { EventEmitter } from 'node:events';
import { createTestExchange } from './test-exchange.js';
import { ResponseAlreadySentError } from './errors.js';
import { ResponseStream, type StreamSink } from './response-stream.js';

/** A sink whose buffer is "full" after each write until `drain` is emitted. */
function slowSink() {
  const events = new EventEmitter();
  const chunks: string[] = [];
  let ended = false;
  const sink = {
    write: (chunk: string) => {
      chunks.push(chunk);
      return false;
    },
    end: () => {
      ended = true;
      events.emit('close');
    },
    once: (event: string, listener: () => void) => events.once(event, listener),
    removeListener: (event: string, listener: () => void) => events.removeListener(event, listener),
  } as unknown as StreamSink;
  return { sink, events, chunks, ended: () => ended };
}

describe('ResponseStream', () => {
  it('waits for drain when the socket buffer is full, and never has two chunks in flight', async () => {
    const { sink, events, chunks } = slowSink();
    const body = new ResponseStream(sink, false);
    let settled = false;
    const first = body.write('a').then((ok) => ((settled = true), ok));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    expect(chunks).toEqual(['a']);
    events.emit('drain');
    expect(await first).toBe(true);
    expect(events.listenerCount('drain')).toBe(0);
  });

  it('resolves a pending write false when the client goes away, and refuses later writes', async () => {
    const { sink, events, chunks } = slowSink();
    const body = new ResponseStream(sink, false);
    const pending = body.write('a');
    events.emit('close');
    expect(await pending).toBe(false);
    expect(body.open).toBe(false);
    expect(await body.write('b')).toBe(false);
    expect(chunks).toEqual(['a']);
  });

  it('ends a HEAD response at once: nothing is written', async () => {
    const { sink, chunks, ended } = slowSink();
    const body = new ResponseStream(sink, true);
    expect(ended()).toBe(true);
    expect(body.open).toBe(false);
    expect(await body.write('a')).toBe(false);
    expect(chunks).toEqual([]);
  });

  it('is the exchange’s one response: status, headers, chunks, then end; respond() afterwards throws', async () => {
    const { exchange, response } = createTestExchange({ method: 'GET', url: '/export' });
    const body = exchange.respondStream({ status: 200, headers: { 'content-type': 'text/csv; charset=utf-8' } });
    expect(await body.write('a,b\r\n')).toBe(true);
    expect(await body.write(Buffer.from('1,2\r\n'))).toBe(true);
    body.end();
    expect(response).toMatchObject({ status: 200, text: 'a,b\r\n1,2\r\n', ended: true });
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-length']).toBeUndefined();
    expect(exchange.responded).toBe(true);
    expect(() => exchange.respond({ body: 'x' })).toThrow(ResponseAlreadySentError);
    expect(() => exchange.respondStream()).toThrow(ResponseAlreadySentError);
  });

  it('defaults the content type to application/octet-stream', () => {
    const { exchange, response } = createTestExchange();
    exchange.respondStream().end();
    expect(response.headers['content-type']).toBe('application/octet-stream');
  });
});
