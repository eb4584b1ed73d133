/**
 * The web process's start time and memory, run through the TypeScript loader (tsx, as before
 * `npm run build`) and from the built bundle (dist/, what `npm start` and the Procfile run):
 *
 *   node --import tsx bench/startup.ts        (RUNS=3 per variant by default)
 *
 * Builds dist/ first (scripts/build.mjs). Each run spawns a fresh web process on a free port
 * against a throw-away database (test profile, migrated), measures the time from spawn to the first
 * 200 of /api/health, its resident memory (VmRSS) then, and again after 500 requests (GET
 * /api/config and /api/infoproducts, 10 at a time). Variants alternate (tsx, built, tsx, built…).
 * Writes the section "Web process start time and memory" into docs/BENCHMARKS.md.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { benchEnv, dropDatabase, machineLine, writeSection, BENCHMARKS_FILE } from './lib';

const ROOT = path.resolve(__dirname, '..');
const RUNS = Number(process.env.RUNS ?? 3);

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

const rssMiB = (pid: number) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};

async function once(args: string[], env: NodeJS.ProcessEnv) {
  const port = await freePort();
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`web exited (${child.exitCode})`);
      const ok = await fetch(`${base}/api/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const readyMs = Number(process.hrtime.bigint() - started) / 1e6;
    const rssReady = rssMiB(child.pid!);
    for (let i = 0; i < 50; i++)
      await Promise.all(
        Array.from({ length: 10 }, (_, j) => fetch(`${base}${j % 2 ? '/api/config' : '/api/infoproducts'}`).then((r) => r.arrayBuffer())),
      );
    return { readyMs, rssReady, rssAfter: rssMiB(child.pid!) };
  } finally {
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await gone;
  }
}

async function main() {
  const build = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('build failed');
  const { provisionServices } = await import('../scripts/provision');
  const { createDb, migrateLatest } = await import('../src/platform/db');
  const loadAtStart = os.loadavg();
  const dbName = `cv_bench_startup_${process.pid}`;
  const infra = await provisionServices('test', dbName);
  const db = createDb(infra.databaseUrl, 2);
  try {
    await migrateLatest(db);
    const env = { ...benchEnv(infra, `cvbenchs${process.pid}`), WEB_DIST_DIR: path.join(ROOT, 'web', 'dist') };
    const variants = [
      { name: 'TypeScript loader (before)', cmd: 'node --import tsx src/bin/web.ts', args: ['--import', 'tsx', 'src/bin/web.ts'] },
      {
        name: 'Built (after)',
        cmd: 'node --enable-source-maps dist/src/bin/web.js',
        args: ['--enable-source-maps', 'dist/src/bin/web.js'],
      },
    ];
    const results = variants.map(() => [] as Array<{ readyMs: number; rssReady: number; rssAfter: number }>);
    for (let i = 0; i < RUNS; i++) {
      for (const [k, v] of variants.entries()) {
        const r = await once(v.args, env);
        console.log(
          `${v.name}: ready in ${Math.round(r.readyMs)} ms, RSS ${r.rssReady.toFixed(0)} MiB, after 500 requests ${r.rssAfter.toFixed(0)} MiB`,
        );
        results[k].push(r);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const table = [
      '| Web process | Command | Start to first /api/health 200, median (runs) | RSS when ready, median | RSS after 500 requests, median |',
      '|---|---|---|---:|---:|',
      ...variants.map((v, k) => {
        const rs = results[k];
        return `| ${v.name} | \`${v.cmd}\` | **${Math.round(median(rs.map((r) => r.readyMs)))} ms** (${rs.map((r) => Math.round(r.readyMs)).join(', ')}) | ${median(rs.map((r) => r.rssReady)).toFixed(0)} MiB | ${median(rs.map((r) => r.rssAfter)).toFixed(0)} MiB |`;
      }),
    ].join('\n');
    console.log(`\n${table}\n`);
    writeSection(
      BENCHMARKS_FILE,
      [
        '## Web process start time and memory',
        '',
        'Command (from the repository root; builds dist/ first, provisions its own PostgreSQL and Redis like `npm test`):',
        '',
        '```sh',
        'node --import tsx bench/startup.ts',
        '```',
        '',
        `- Date: ${new Date().toISOString()}`,
        machineLine(loadAtStart),
        `- ${RUNS} runs per variant, alternating. Start: from spawn to the first 200 of \`/api/health\` (polled every 10 ms). Memory: VmRSS of the web process when ready, and after 500 requests (\`/api/config\` and \`/api/infoproducts\`, 10 at a time).`,
        '',
        table,
        '',
      ].join('\n'),
    );
    console.log('docs/BENCHMARKS.md updated.');
  } finally {
    await db.destroy();
    await dropDatabase(infra.adminDatabaseUrl, dbName);
    await infra.stop();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
