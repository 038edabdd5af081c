import type { ServerResponse } from 'node:http';

/** The parts of `http.ServerResponse` a {@link ResponseStream} writes to. */
export type StreamSink = Pick<ServerResponse, 'write' | 'end' | 'once' | 'removeListener'>;

/**
 * A response body written in chunks (`exchange.respondStream(...)`), for bodies too large to hold
 * in memory. {@link write} honours backpressure: it resolves once the socket took the chunk, or
 * after `'drain'` when Node's buffer was full, so a writer that awaits it holds at most one
 * buffer's worth. When the client goes away (`'close'`), pending and later writes resolve `false`
 * and the writer should stop. The status and headers are sent with the first chunk (chunked
 * transfer encoding: the length is unknown).
 *
 * @example
 * const body = exchange.respondStream({ headers: { 'content-type': 'application/x-ndjson' } });
 * for await (const line of lines) if (!(await body.write(line))) return;
 * body.end();
 */
export class ResponseStream {
  private gone = false;
  private wake: (() => void) | undefined;

  /** @internal Created by `Exchange.respondStream`; `head` sends no body (the response ends now). */
  constructor(
    private readonly sink: StreamSink,
    head: boolean,
  ) {
    sink.once('close', () => {
      this.gone = true;
      this.wake?.();
    });
    if (head) this.end();
  }

  /** `true` while chunks are wanted: not ended, not a HEAD request, and the client is still there. */
  get open(): boolean {
    return !this.gone;
  }

  /**
   * Writes one chunk and waits while Node's buffer is full; `false` when the body is no longer
   * wanted ({@link open}), in which case nothing more should be written.
   */
  async write(chunk: string | Uint8Array): Promise<boolean> {
    if (this.gone) return false;
    if (this.sink.write(chunk)) return true;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.wake = undefined;
        this.sink.removeListener('drain', done);
        resolve();
      };
      this.wake = done;
      this.sink.once('drain', done);
    });
    return !this.gone;
  }

  /** Ends the body (a second call, or one after the client left, does nothing). */
  end(): void {
    if (this.gone) return;
    this.gone = true;
    this.sink.end();
  }
}
