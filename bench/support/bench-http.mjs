// The load generator's HTTP side of the identity benchmarks (bench/passkey, bench/device; Tessera and
// its competitors alike): requests over
// one keep-alive `node:http` agent — the load generator shares the machine, so it uses the cheapest
// client Node has — and the bench servers' start-up handshake.
import { spawn } from 'node:child_process';
import { URLSearchParams } from 'node:url';
import http from 'node:http';

export const ORIGIN = 'http://localhost:3000';

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/**
 * One request with `Origin` (and cookies, a CSRF token, a JSON body or an
 * `application/x-www-form-urlencoded` form, further `headers` when given) to `base + path`;
 * resolves with the status, the text, the parsed JSON and the Set-Cookie lines.
 */
export function request(base, method, path, { body, form, cookies = [], csrfToken, headers: extra = {} } = {}) {
  const headers = { origin: ORIGIN, ...extra };
  const payload =
    form !== undefined ? new URLSearchParams(form).toString() : body === undefined ? undefined : JSON.stringify(body);
  if (payload !== undefined) {
    headers['content-type'] = form !== undefined ? 'application/x-www-form-urlencoded' : 'application/json';
    headers['content-length'] = Buffer.byteLength(payload);
  }
  if (cookies.length > 0) headers.cookie = cookies.join('; ');
  if (csrfToken !== undefined) headers['x-csrf-token'] = csrfToken;
  return new Promise((resolve, reject) => {
    const req = http.request(base + path, { method, headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: res.statusCode,
          text,
          json: text === '' ? undefined : JSON.parse(text),
          setCookies: res.headers['set-cookie'] ?? [],
        });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

export function expectStatus(res, status, what) {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${res.text}`);
  return res;
}

/** `name=value` of a cookie the response set (not a clearing one). */
export function cookieOf(res, name) {
  const cookie = res.setCookies.find((c) => c.startsWith(`${name}=`) && !c.startsWith(`${name}=;`));
  if (cookie === undefined) throw new Error(`no ${name} cookie in ${res.status} response`);
  return cookie.split(';')[0];
}

/**
 * Starts a bench server script with `node [...nodeArgs] script`; resolves once it prints its
 * `<port> <database URL> [...]` line, with the child, its base URL and the line's other fields.
 */
export function startBenchServer(script, { env = {}, nodeArgs = [] } = {}) {
  const child = spawn(process.execPath, [...nodeArgs, script], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  return new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk) => {
      buffered += String(chunk);
      const line = buffered.split('\n').find((l) => /^\d+ \S+/.test(l.trim()));
      if (line !== undefined) {
        const [port, databaseUrl, ...rest] = line.trim().split(' ');
        resolve({ child, base: `http://127.0.0.1:${port}`, databaseUrl, rest });
      }
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

/** SIGTERM and wait for the exit. */
export async function stopBenchServer({ child }) {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** The nearest-rank `p`th percentile (0 < p ≤ 100) of an ascending array. */
export function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
