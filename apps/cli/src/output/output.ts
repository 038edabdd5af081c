import ora from 'ora';

/** The writable side of a terminal stream the CLI needs. */
export interface OutputStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

/**
 * The CLI's output: results on stdout, warnings and failures on stderr, and a spinner (`ora`)
 * while waiting — only when stdout is a terminal and `NO_COLOR` is unset; otherwise plain lines
 * without escape codes, for scripts and logs.
 *
 * @example
 * const output = new Output(process.stdout, process.stderr, process.env);
 * const tokens = await output.waitFor('Waiting for approval…', poll());
 */
export class Output {
  readonly interactive: boolean;

  constructor(
    private readonly stdout: OutputStream,
    private readonly stderr: OutputStream,
    env: NodeJS.ProcessEnv,
  ) {
    this.interactive = stdout.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === '');
  }

  /** One line on stdout. */
  line(text: string): void {
    this.stdout.write(`${text}\n`);
  }

  /** One line on stderr. */
  warn(text: string): void {
    this.stderr.write(`${text}\n`);
  }

  /** Shows `text` with a spinner (or as one plain line) until `work` settles. */
  async waitFor<T>(text: string, work: Promise<T>): Promise<T> {
    if (!this.interactive) {
      this.line(text);
      return work;
    }
    const spinner = ora({ text, stream: this.stdout as NodeJS.WritableStream, discardStdin: false }).start();
    try {
      const value = await work;
      spinner.stop();
      return value;
    } catch (error) {
      spinner.stop();
      throw error;
    }
  }
}
