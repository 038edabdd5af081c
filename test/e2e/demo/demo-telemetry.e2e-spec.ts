import { describe, it, expect, beforeAll } from '@jest/globals';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DemoServer, freePort } from '../../browser/support/demo-server.js';
import { ensureBuilt } from '../cli/cli-process.support.js';

/** One OTLP/HTTP export the collector double received: its path and body text. */
interface Export {
  readonly path: string;
  readonly body: string;
}

/** A collector double on a free port: answers every OTLP/HTTP export 200 and keeps it. */
async function recordingCollector() {
  const exports: Export[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      exports.push({ path: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exports,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The built demo with `OTEL_EXPORTER_OTLP_ENDPOINT`: the Node SDK with OTLP/HTTP exporters is
 * started before the app. With a collector, the identity spans and metrics arrive there (flushed
 * at shutdown); with an unreachable one, the demo still starts, answers, and stops on SIGTERM by
 * itself (the SDK's shutdown is bounded), not by the harness's SIGKILL.
 */
describe('the demo with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  beforeAll(() => ensureBuilt());

  it('exports the identity spans and metrics to the collector over OTLP/HTTP', async () => {
    const collector = await recordingCollector();
    try {
      const demo = await DemoServer.start({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url });
      expect((await fetch(`${demo.origin}/identity/v1/client-config`)).status).toBe(200);
      const exit = await demo.stop();
      expect(exit?.signal).toBe('SIGTERM');
      const traces = collector.exports.filter((sent) => sent.path === '/v1/traces');
      const metrics = collector.exports.filter((sent) => sent.path === '/v1/metrics');
      expect(traces.some((sent) => sent.body.includes('identity.route GET /identity/v1/client-config'))).toBe(true);
      expect(traces.some((sent) => sent.body.includes('identity.stage credential_resolution'))).toBe(true);
      expect(metrics.some((sent) => sent.body.includes('tessera.identity.store.duration'))).toBe(true);
    } finally {
      await collector.close();
    }
  });

  it('starts, answers and stops by itself when the collector is unreachable', async () => {
    const demo = await DemoServer.start({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await freePort()}` });
    const answered = await fetch(`${demo.origin}/identity/v1/client-config`);
    const exit = await demo.stop();
    expect(answered.status).toBe(200);
    expect(exit).toEqual({ code: null, signal: 'SIGTERM' });
  });
});
