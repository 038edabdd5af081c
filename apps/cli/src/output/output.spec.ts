import { describe, expect, it } from '@jest/globals';
import { Output, type OutputStream } from './output.js';

function stream(isTTY: boolean): OutputStream & { text: string } {
  return {
    isTTY,
    text: '',
    write(chunk: string) {
      this.text += chunk;
      return true;
    },
  };
}

describe('Output', () => {
  it('shows a spinner only when stdout is a terminal and NO_COLOR is unset or empty', () => {
    expect(new Output(stream(true), stream(false), {}).interactive).toBe(true);
    expect(new Output(stream(true), stream(false), { NO_COLOR: '' }).interactive).toBe(true);
    expect(new Output(stream(true), stream(false), { NO_COLOR: '1' }).interactive).toBe(false);
    expect(new Output(stream(false), stream(false), {}).interactive).toBe(false);
  });

  it('waits with one plain line and no escape codes when stdout is not a terminal', async () => {
    const stdout = stream(false);
    const output = new Output(stdout, stream(false), {});
    await expect(output.waitFor('Waiting for approval…', Promise.resolve('tokens'))).resolves.toBe('tokens');
    expect(stdout.text).toBe('Waiting for approval…\n');
  });

  it('writes results to stdout and warnings to stderr, one line each', () => {
    const stdout = stream(false);
    const stderr = stream(false);
    const output = new Output(stdout, stderr, {});
    output.line('result');
    output.warn('warning: something');
    expect({ stdout: stdout.text, stderr: stderr.text }).toEqual({
      stdout: 'result\n',
      stderr: 'warning: something\n',
    });
  });
});
