/**
 * Jest's global setup of the projects that need servers (integration, e2e): a jest started on its
 * own (`npx jest tests/x.test.ts`) gets what `npm test` prepares (the test cluster's PostgreSQL and
 * Redis, a migrated template database, the web build, Chromium) from the wrapper's own code,
 * `scripts/stack.ts test-services`, held up until global-teardown.ts. Under `npm test` the wrapper
 * has done it already (TEST_ADMIN_DATABASE_URL is set) and this does nothing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

/** The held-up `stack.ts test-services`, for global-teardown.ts (same process). */
export const held: { child: ChildProcess | null } = ((
  globalThis as { __cotaverdeTestServices?: { child: ChildProcess | null } }
).__cotaverdeTestServices ??= { child: null });

export default async function globalSetup(): Promise<void> {
  if (process.env.TEST_ADMIN_DATABASE_URL || held.child) return;
  // stdin: closed by the teardown (or by this process's end) to stop the services; its log to our
  // stderr; its environment as one JSON line on file descriptor 3.
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts', 'stack.ts'), 'test-services'], {
    cwd: ROOT,
    env: process.env,
    stdio: ['pipe', 2, 2, 'pipe'],
  });
  held.child = child;
  const env = await new Promise<Record<string, string>>((resolve, reject) => {
    let buf = '';
    const out = child.stdio[3] as NodeJS.ReadableStream;
    out.setEncoding('utf8');
    out.on('data', (d: string) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl >= 0) resolve(JSON.parse(buf.slice(0, nl)) as Record<string, string>);
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      reject(new Error(`scripts/stack.ts test-services saiu (código ${code}) antes de preparar os testes; veja as mensagens acima.`)),
    );
  });
  Object.assign(process.env, env);
  delete process.env.DATABASE_URL;
}
