import { CredentialRegistry } from './credentials/credential-registry.js';
import { HttpClient } from './http/http.client.js';
import { Output } from './output/output.js';

/** Everything a command needs from the process, injected so that commands stay testable. */
export interface CliContext {
  readonly env: NodeJS.ProcessEnv;
  readonly output: Output;
  readonly registry: CredentialRegistry;
  readonly verbose: boolean;
  /** An HTTP client for `server` (bounded requests; `--verbose` request ids on stderr). */
  http(server: string): HttpClient;
  now(): number;
}

/**
 * The context of one `tessera` run on the real process streams and environment.
 *
 * @example
 * const context = processContext(process.env, { verbose: true });
 */
export function processContext(env: NodeJS.ProcessEnv, options: { verbose: boolean }): CliContext {
  const output = new Output(process.stdout, process.stderr, env);
  const registry = new CredentialRegistry(env, (line) => output.warn(line));
  return {
    env,
    output,
    registry,
    verbose: options.verbose,
    http: (server) => new HttpClient(server, { verbose: options.verbose, log: (line) => output.warn(line) }),
    now: Date.now,
  };
}
