import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { childProcessEnv, type TestContext } from './context';
import { eventually } from './eventually';

const ROOT = path.resolve(__dirname, '../..');

/**
 * Worker processes for crash tests: `start` spawns tests/payments/support/worker-process.ts
 * (jobs/worker.ts with short BullMQ lock timings) on the test context's servers and waits for it
 * to be ready; `killAll` (for afterAll) SIGKILLs the ones still running.
 */
export function workerProcesses(t: () => TestContext) {
  const children: ChildProcess[] = [];
  async function start(): Promise<{ child: ChildProcess; output: () => string }> {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'tests/payments/support/worker-process.ts')], {
      cwd: ROOT,
      env: childProcessEnv(t(), { WORKER_LOCK_MS: '2000', WORKER_STALLED_MS: '1000' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`worker exited early (${child.exitCode}):\n${out}`);
        return out.includes('worker ready');
      },
      'the worker process to start',
      30_000,
      100,
    );
    return { child, output: () => out };
  }
  function killAll() {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  }
  return { start, killAll };
}

/** Resolves when the process has exited (at once if it already has). */
export const exited = (c: ChildProcess) =>
  new Promise<void>((resolve) => (c.exitCode !== null || c.signalCode !== null ? resolve() : c.once('exit', () => resolve())));
