import { connect } from 'node:net';

/** A response read off the wire: status, lower-cased headers (repeats joined with `, `), body text. */
export interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * Sends `head` (request line and header lines, without the final blank line) verbatim over TCP,
 * so a test can send what HTTP clients refuse to (two `Host` headers, an absolute-form target).
 *
 * @example
 * await rawRequest(port, ['GET /x HTTP/1.1', 'Host: a', 'Host: b']);
 */
export function rawRequest(port: number, head: readonly string[]): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => resolve(parse(Buffer.concat(chunks).toString('utf8'))));
    socket.write(`${[...head, 'Connection: close'].join('\r\n')}\r\n\r\n`);
  });
}

function parse(text: string): RawResponse {
  const split = text.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return { status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(split + 4) };
}
