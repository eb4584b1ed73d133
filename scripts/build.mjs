#!/usr/bin/env node
// `npm run build` (with build:web) and `npm start`: compiles the server, the worker and the CLI
// to JavaScript with esbuild, so production runs `node dist/...` with no TypeScript loader.
//
//   node scripts/build.mjs              build dist/ now
//   node scripts/build.mjs --if-stale   only when a source is newer than the last build
//
// Output (the checkout's layout under dist/, so each bundle finds the project root above it):
//   dist/src/bin/web.js     web process       (Procfile `web`)
//   dist/jobs/worker.js     worker process    (Procfile `worker`)
//   dist/cli/index.js       the cotaverde CLI (Procfile `release`: db migrate)
//   dist/migrations/*.js    the knex migrations, one file each (the built CLI loads them)
// Dependencies stay in node_modules (packages external); each entry is one bundle of our code.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'dist');
const stamp = path.join(out, '.build-stamp');
export const ENTRIES = ['src/bin/web.ts', 'jobs/worker.ts', 'cli/index.ts'];
const SOURCES = ['src', 'jobs', 'cli', 'migrations', 'seeds', 'package-lock.json', 'tsconfig.json', 'scripts/build.mjs'];

function newestMtime(p) {
  if (!fs.existsSync(p)) return 0;
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs;
  for (const e of fs.readdirSync(p)) if (e !== 'node_modules' && e !== 'dist') max = Math.max(max, newestMtime(path.join(p, e)));
  return max;
}

/** Whether dist/ is older than any source (or missing). */
export function serverBuildStale() {
  if (!fs.existsSync(stamp) || ENTRIES.some((e) => !fs.existsSync(path.join(out, e.replace(/\.ts$/, '.js'))))) return true;
  const built = fs.statSync(stamp).mtimeMs;
  return SOURCES.some((s) => newestMtime(path.join(root, s)) > built);
}

export async function buildServer() {
  const started = Date.now();
  fs.rmSync(out, { recursive: true, force: true });
  const common = { platform: 'node', target: 'node20', format: 'cjs', sourcemap: true, logLevel: 'warning', absWorkingDir: root };
  await build({
    ...common,
    entryPoints: ENTRIES,
    bundle: true,
    packages: 'external',
    outbase: '.',
    outdir: out,
  });
  const migrations = fs
    .readdirSync(path.join(root, 'migrations'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `migrations/${f}`);
  await build({ ...common, entryPoints: migrations, bundle: false, outdir: path.join(out, 'migrations') });
  // The `cotaverde` bin's own bundle (dist/cli/index.cjs, cli/build.cjs): built here too, so the
  // bin finds it fresh after a build and needs no esbuild at run time.
  createRequire(import.meta.url)('../cli/build.cjs').buildCli();
  fs.writeFileSync(stamp, new Date().toISOString() + '\n');
  return Date.now() - started;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ifStale = process.argv.includes('--if-stale');
  if (ifStale && !serverBuildStale()) {
    console.log('[cotaverde] build do servidor (dist/) está em dia.');
  } else {
    const ms = await buildServer();
    console.log(`[cotaverde] servidor, worker e CLI compilados em dist/ (esbuild, ${ms} ms).`);
  }
}
