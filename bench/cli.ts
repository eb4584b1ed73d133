/**
 * The `cotaverde` CLI's start-up, side by side in one run:
 *   node --import tsx bench/cli.ts          (RUNS=15 by default; `npm run bench:cli`)
 *
 * Provisions the test profile's PostgreSQL and Redis with a throw-away database (migrated, demo
 * seeded), builds the CLI (cli/build.cjs), then runs in rounds — each round every command once,
 * in turn, so a busy moment hits them all alike — `node -e 1`, `cotaverde --help`,
 * `cotaverde draws list --json` (the built CLI through cli/bin.cjs, as an operator runs it) and,
 * for comparison, `--help` from the TypeScript sources through tsx (how every call ran before).
 * Reports the median wall time of each and its ratio to `node -e 1`, and writes the
 * "CLI start-up" section of docs/BENCHMARKS.md. Timings are measured here, never asserted in tests.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { BENCHMARKS_FILE, cleanUpRun, machineLine, writeSection } from './lib';

const ROOT = path.resolve(__dirname, '..');
const RUNS = Number(process.env.RUNS ?? 15);

/** Runs one command to its end (never spawnSync: the embedded PostgreSQL logs to this process's pipes); returns its wall time in ms. */
function timed(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      const ms = performance.now() - t0;
      if (code !== 0) reject(new Error(`node ${args.join(' ')} saiu com ${code}: ${err.trim()}`));
      else resolve(ms);
    });
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function main() {
  const { provisionServices } = await import('../scripts/provision');
  const { createDb, migrateLatest } = await import('../src/platform/db');
  const { seedDemo } = await import('../seeds/demo');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { buildCli } = require('../cli/build.cjs') as { buildCli(): { outfile: string } };

  const loadAtStart = os.loadavg();
  const dbName = `cv_bench_cli_${process.pid}`;
  const infra = await provisionServices('test', dbName);
  const queuePrefix = `cvbenchc${process.pid}`;
  const db = createDb(infra.databaseUrl, 2);
  try {
    await migrateLatest(db);
    process.env.NODE_ENV = 'test';
    await seedDemo(db);
    buildCli();

    const env = {
      ...process.env,
      DATABASE_URL: infra.databaseUrl,
      REDIS_URL: infra.redisUrl,
      QUEUE_PREFIX: queuePrefix,
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
    };
    const bin = path.join('cli', 'bin.cjs');
    const cases: Array<{ label: string; args: string[]; target?: number }> = [
      { label: '`node -e 1`', args: ['-e', '1'] },
      { label: '`cotaverde --help`', args: [bin, '--help'], target: 3 },
      { label: '`cotaverde draws list --json`', args: [bin, 'draws', 'list', '--json'], target: 5 },
      {
        label: '`npm run cli -- --help` (the TypeScript sources through tsx)',
        args: ['--import', 'tsx', path.join('cli', 'index.ts'), '--help'],
      },
    ];
    for (const c of cases) await timed(c.args, env); // warm the file cache once
    const times = cases.map(() => [] as number[]);
    for (let r = 0; r < RUNS; r++) for (let i = 0; i < cases.length; i++) times[i].push(await timed(cases[i].args, env));

    const base = median(times[0]);
    const rows = cases.map((c, i) => {
      const m = median(times[i]);
      const ratio = m / base;
      const verdict = c.target === undefined ? '' : ratio <= c.target ? `within ${c.target}×` : `ABOVE ${c.target}×`;
      return { label: c.label, m, ratio, verdict };
    });
    for (const r of rows) console.log(`${r.label.padEnd(52)} ${r.m.toFixed(0).padStart(6)} ms  ${r.ratio.toFixed(2)}× ${r.verdict}`);

    const section = [
      '## CLI start-up',
      '',
      'Command: `npm run bench:cli` (`node --import tsx bench/cli.ts`, RUNS=' +
        RUNS +
        '). Median wall time of each command over ' +
        RUNS +
        ' rounds, the commands run in turn in every round; the CLI runs as operators run it, `node cli/bin.cjs` (the built `dist/cli/index.cjs`),' +
        ' against a migrated, demo-seeded throw-away database.',
      machineLine(loadAtStart),
      '',
      '| command | median | × `node -e 1` | target |',
      '|---|---:|---:|---|',
      ...rows.map((r) => `| ${r.label} | ${r.m.toFixed(0)} ms | ${r.ratio.toFixed(2)}× | ${r.verdict || '—'} |`),
      '',
      'Before the built CLI and its lazy services (commit 4243cf7: every call transpiled the TypeScript through tsx and imported every module),' +
        ' `cotaverde --help` took 0.90–0.99 s on this machine (`/usr/bin/time -f %e node cli/bin.cjs --help` by hand; `node -e 1` 0.05 s).',
      '',
      '`--help` loads commander and the command definitions only; `draws list` adds zod (the configuration), knex + pg and pino,' +
        ' not ioredis, BullMQ, the mailer or the payment providers (createServices, src/services.ts, builds each service on first use).',
      '',
    ].join('\n');
    writeSection(BENCHMARKS_FILE, section);
    console.log(`escrito em ${path.relative(ROOT, BENCHMARKS_FILE)}`);
  } finally {
    await cleanUpRun({ child: null, db, infra, dbName, queuePrefix });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
