import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { eventually } from './eventually';

/** Whether a Redis answers PING on 127.0.0.1:port. */
export function pingRedis(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.write('PING\r\n');
      s.once('data', (d) => {
        s.destroy();
        resolve(d.toString().startsWith('+PONG'));
      });
    });
    s.once('error', () => resolve(false));
  });
}

/**
 * A redis-server of one test (or bench) only, launched like scripts/provision.ts does: no
 * persistence, so a restart is an empty Redis (as after a crash or a wipe). The suite's shared
 * Redis is never touched. `extraArgs` adds redis-server flags (e.g. an eviction policy).
 */
export class PrivateRedis {
  private child: ChildProcess | null = null;
  readonly dir: string;
  constructor(
    readonly port: number,
    private readonly o: { name?: string; extraArgs?: string[] } = {},
  ) {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), `cv-${o.name ?? 'redis'}-`));
  }
  get url() {
    return `redis://127.0.0.1:${this.port}`;
  }
  get running() {
    return this.child !== null;
  }
  async start(timeoutMs = 10_000) {
    const bin = execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim();
    const args = [
      '--port',
      String(this.port),
      '--bind',
      '127.0.0.1',
      '--dir',
      this.dir,
      '--daemonize',
      'no',
      '--appendonly',
      'no',
      '--save',
      '',
      ...(this.o.extraArgs ?? []),
    ];
    this.child = spawn(bin, args, { stdio: 'ignore' });
    await eventually(() => pingRedis(this.port), `the private redis-server on port ${this.port} to answer`, timeoutMs);
  }
  async stop() {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }
}
