import type { IncomingMessage } from 'node:http';
import { payloadTooLargeError } from './errors.js';

/**
 * Reads a request stream into one buffer, refusing (413) before reading when `Content-Length`
 * announces more than the limit and as soon as the received bytes pass it.
 */
export function readRequestBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const announced = req.headers['content-length'];
  if (announced !== undefined && Number(announced) > limitBytes) {
    req.resume();
    return Promise.reject(payloadTooLargeError());
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.byteLength;
      if (size > limitBytes) {
        cleanup();
        req.resume();
        reject(payloadTooLargeError());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}
