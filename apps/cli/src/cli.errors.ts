/**
 * The exit codes of `tessera` (documented in apps/cli/README.md):
 * 0 success; 1 a user-facing failure (not logged in, denied, expired, a login the server no longer
 * accepts, a request the server refused); 2 a usage error (unknown option, bad server URL);
 * 3 the server could not be reached or is unavailable (network error, timeout, 429, 5xx);
 * 130 a login interrupted with Ctrl-C (its device code cancelled on the server).
 */
export const ExitCode = Object.freeze({ ok: 0, failure: 1, usage: 2, unavailable: 3, interrupted: 130 });

/** One of {@link ExitCode}'s values. */
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** The exact message of every command but `login` when no login is stored. */
export const NOT_LOGGED_IN = 'Not logged in. Run `tessera login --server <url>`.';

/**
 * A failure the CLI reports as one line on stderr and an exit code; `requestId` (the server's
 * `X-Request-ID`) is printed with `--verbose`. The message never contains a token or a code.
 *
 * @example
 * throw new CliError('The login was denied in the browser.', ExitCode.failure);
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCodeValue,
    readonly requestId?: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
