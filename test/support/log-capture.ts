import type { LoggerService } from '@nestjs/common';
import { inspect } from 'node:util';

/** Renders one logged value the way a log sink would (errors with stack and cause, objects deeply). */
function render(value: unknown): string {
  if (typeof value === 'string') return value;
  return inspect(value, { depth: 8, breakLength: Infinity });
}

/**
 * A Nest `LoggerService` that keeps every line (level, context and every argument rendered in
 * full, errors with their stack and cause), so tests can scan what the server would have logged.
 *
 * @example
 * const logger = new CapturingLogger();
 * const app = moduleRef.createNestApplication({ logger });
 * expect(logger.lines.join('\n')).not.toContain(secret);
 */
export class CapturingLogger implements LoggerService {
  readonly lines: string[] = [];

  log(message: unknown, ...rest: unknown[]): void {
    this.push('log', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.push('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.push('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.push('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.push('verbose', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.push('fatal', message, rest);
  }

  private push(level: string, message: unknown, rest: unknown[]): void {
    this.lines.push([level, render(message), ...rest.map(render)].join(' '));
  }
}

/** Captured process output; `restore()` puts the original writers back. */
export interface ProcessOutputCapture {
  /** Every chunk written to stdout/stderr and every `console.*` call, in order. */
  readonly lines: string[];
  restore(): void;
}

const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;

/**
 * Records everything written to `process.stdout`, `process.stderr` and `console.*` (still passing
 * it through), so a test can prove no secret reaches any log sink.
 *
 * @example
 * const output = captureProcessOutput();
 * try { ... } finally { output.restore(); }
 */
export function captureProcessOutput(): ProcessOutputCapture {
  const lines: string[] = [];
  const restores: (() => void)[] = [];
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write;
    stream.write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]) {
      lines.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
      return (original as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    } as typeof stream.write;
    restores.push(() => {
      stream.write = original;
    });
  }
  for (const method of CONSOLE_METHODS) {
    const original = console[method];
    console[method] = (...args: unknown[]) => {
      lines.push(args.map(render).join(' '));
      (original as (...args: unknown[]) => void).apply(console, args);
    };
    restores.push(() => {
      console[method] = original;
    });
  }
  return {
    lines,
    restore: () => {
      for (const restore of restores.reverse()) restore();
    },
  };
}
