import { runCli } from '../../cli/index';
import type { Services } from '../../src/services';

/** A stack trace line ("    at fn (file.ts:1:2)"): the CLI's errors never print one. */
export const STACK = /\n\s+at .+:\d+:\d+/;

/**
 * Runs the CLI in-process, capturing what it writes to stdout and stderr. With `services` it runs
 * against them (e.g. a test context's); without, runCli builds its own from the environment.
 */
export async function runCliCaptured(argv: string[], services?: () => Services): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const o = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out.push(String(chunk));
    return true;
  });
  const e = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    err.push(String(chunk));
    return true;
  });
  try {
    const code = await runCli(argv, services);
    return { code, out: out.join(''), err: err.join('') };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}
