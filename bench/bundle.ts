/**
 * What the home page downloads (its download budget, "the site people download"):
 *
 *   node --import tsx bench/bundle.ts          (npm run bench:bundle)
 *   BENCH_SKIP_BUILD=1 …                       (measure web/dist as it is, no vite build first)
 *   BENCH_SCREENSHOT=/tmp/home.png …           (also a full-page phone-sized screenshot once loaded)
 *   BENCH_NO_DOCS=1 …                          (print only; docs/BENCHMARKS.md untouched)
 *
 * 1. Builds the SPA (vite build, production) unless told not to.
 * 2. Provisions PostgreSQL + Redis like `npm test` (scripts/provision.ts, test profile), creates a
 *    throw-away database, migrates it and seeds the demo catalogue.
 * 3. Starts the real app (createServices + createApp, serving web/dist) on 127.0.0.1.
 * 4. Opens / in a fresh headless Chromium (phone viewport, empty cache, the Accept-Encoding
 *    Chromium sends: gzip, deflate, br, zstd), waits for the product cards and for the network
 *    to go quiet, and sums the body bytes of every JS response as sent (brotli where accepted).
 * 5. Does the same for a first visit of /numeros (the page WhatsApp links send buyers to): at most
 *    1.3× the home page's JS, no antd.
 * 6. Checks the budget (≤ 170 KB of JS) and that no chunk holding account or admin code was
 *    downloaded (web/dist/.vite/chunks.json says what each chunk contains), prints the chunks and
 *    writes the section "Home page download (JS)" of docs/BENCHMARKS.md. Exits 1 when either
 *    check fails.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { BENCHMARKS_FILE, dropDatabase, machineLine, writeSection } from './lib';
import { launchChromium, PHONE_VIEWPORT } from '../tests/helpers/browser';
import {
  chunkOf,
  HOME_JS_BUDGET_BYTES,
  privateSourcesIn,
  readChunkMap,
  recordScripts,
  topSources,
  WEB_DIST,
  type ScriptResponse,
} from '../tests/helpers/bundle';

const ROOT = path.resolve(__dirname, '..');
const kb = (bytes: number) => (bytes / 1024).toFixed(1);

function build() {
  console.log('vite build (production)…');
  const r = spawnSync(
    process.execPath,
    [path.join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'web/vite.config.mts', '--logLevel', 'warn'],
    {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'production' },
      stdio: 'inherit',
    },
  );
  if (r.status !== 0) throw new Error('vite build failed');
}

/** gzip size of a file as precompressed at build time (what a browser without brotli receives). */
function gzipSize(file: string): number | null {
  const gz = path.join(WEB_DIST, `${file}.gz`);
  return fs.existsSync(gz) ? fs.statSync(gz).size : null;
}

async function main() {
  if (process.env.BENCH_SKIP_BUILD !== '1') build();
  if (!process.env.CHROMIUM_PATH && !fs.existsSync('/usr/bin/chromium'))
    throw new Error('Chromium not found (/usr/bin/chromium or CHROMIUM_PATH).');
  const { provisionServices } = await import('../scripts/provision');
  const { createDb, migrateLatest } = await import('../src/platform/db');
  const { seedDemo } = await import('../seeds/demo');
  const { loadConfig } = await import('../src/platform/config');
  const { createServices } = await import('../src/services');
  const { createApp } = await import('../src/http');

  const loadAtStart = os.loadavg();
  const dbName = `cv_bench_${process.pid}`;
  const infra = await provisionServices('test', dbName);
  const queuePrefix = `cvbundle${process.pid}`;
  let services: ReturnType<typeof createServices> | null = null;
  let server: http.Server | null = null;
  let browser: Awaited<ReturnType<typeof launchChromium>> | null = null;
  try {
    const db = createDb(infra.databaseUrl, 2);
    try {
      await migrateLatest(db);
      process.env.NODE_ENV = 'test';
      await seedDemo(db);
    } finally {
      await db.destroy();
    }
    services = createServices({
      config: loadConfig({
        ...process.env,
        NODE_ENV: 'test',
        DATABASE_URL: infra.databaseUrl,
        REDIS_URL: infra.redisUrl,
        QUEUE_PREFIX: queuePrefix,
        LOG_LEVEL: 'silent',
        RATE_LIMIT_DISABLED: 'true',
      }),
    });
    server = http.createServer(createApp(services, { serveWeb: true, webDir: WEB_DIST }).callback());
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    browser = await launchChromium();
    const context = await browser.newContext({ viewport: PHONE_VIEWPORT, locale: 'pt-BR' });
    const page = await context.newPage();
    let acceptEncoding = '';
    page.on('request', (req) => {
      if (req.resourceType() === 'script' && !acceptEncoding)
        void req.allHeaders().then((h) => (acceptEncoding = h['accept-encoding'] ?? ''));
    });
    const scripts = await recordScripts(page, async () => {
      await page.goto(`${url}/`);
      await page.getByRole('article').first().waitFor();
    });
    const cards = await page.getByRole('article').count();
    if (process.env.BENCH_SCREENSHOT) {
      await page.screenshot({ path: process.env.BENCH_SCREENSHOT, fullPage: true });
      console.log(`screenshot: ${process.env.BENCH_SCREENSHOT}`);
    }
    await context.close();

    // /numeros (where WhatsApp links send buyers), a first visit too: at most 1.3× the home page's JS (issue 26).
    const boardContext = await browser.newContext({ viewport: PHONE_VIEWPORT, locale: 'pt-BR' });
    const boardPage = await boardContext.newPage();
    const boardScripts = await recordScripts(boardPage, async () => {
      await boardPage.goto(`${url}/numeros`);
      await boardPage.getByRole('grid').first().waitFor();
    });
    await boardContext.close();

    // ------------------------------------------------------------ report
    const map = readChunkMap();
    const failed = scripts.filter((s) => s.status !== 200);
    if (failed.length) throw new Error(`scripts not loaded: ${failed.map((s) => `${s.file} ${s.status}`).join(', ')}`);
    const total = scripts.reduce((a, s) => a + s.transferred, 0);
    const raw = scripts.reduce((a, s) => a + s.raw, 0);
    const gz = scripts.reduce((a, s) => a + (gzipSize(s.file) ?? s.raw), 0);
    const encodings = [...new Set(scripts.map((s) => s.encoding ?? 'none'))].join(', ');
    const leaked = privateSourcesIn(map, scripts);
    const withinBudget = total <= HOME_JS_BUDGET_BYTES;
    const lazyOnly = Object.entries(map)
      .filter(([, c]) => Object.keys(c.sources).some((s) => /^web\/src\/pages\/(account|admin)\//.test(s)))
      .map(([f]) => f.replace(/^assets\//, ''));

    const byWeight = [...scripts].sort((a, b) => b.transferred - a.transferred);
    const row = (s: ScriptResponse) => {
      const c = chunkOf(map, s.file);
      const kind = c?.isEntry ? 'entry' : c?.isDynamicEntry ? 'lazy (loaded after first render)' : 'shared';
      const g = gzipSize(s.file);
      return `| \`${s.file.replace(/^\/assets\//, '')}\` | ${kind} | ${topSources(c)} | ${kb(s.transferred)} (${s.encoding ?? 'none'}) | ${g == null ? '-' : kb(g)} | ${kb(s.raw)} |`;
    };
    const table = [
      '| Chunk | Kind | Biggest sources (bytes before minification) | Sent (KB) | gzip (KB) | Raw (KB) |',
      '|---|---|---|---:|---:|---:|',
      ...byWeight.map(row),
      `| **Total (${scripts.length} files)** | | | **${kb(total)}** | ${kb(gz)} | ${kb(raw)} |`,
    ].join('\n');
    const verdict = `JS transferred by the first visit of \`/\`: **${kb(total)} KB** (${encodings}; budget ${kb(HOME_JS_BUDGET_BYTES)} KB: ${withinBudget ? 'within it' : 'OVER IT'}); ${kb(gz)} KB if sent gzip, ${kb(raw)} KB uncompressed.`;
    const privacy = leaked.length
      ? `Account/admin code downloaded by the store visitor: **${leaked.join('; ')}**.`
      : `No account or admin code downloaded: none of the ${scripts.length} scripts holds a source under \`web/src/pages/account/\` or \`web/src/pages/admin/\` (those are in ${lazyOnly.map((f) => `\`${f}\``).join(', ')}, not requested).`;
    console.log(`\n${table}\n\n${verdict}\n${privacy}\n`);

    const boardTotal = boardScripts.reduce((a, s) => a + s.transferred, 0);
    const boardGz = boardScripts.reduce((a, s) => a + (gzipSize(s.file) ?? s.raw), 0);
    const ratio = boardTotal / total;
    const boardAntd = [...new Set(boardScripts.flatMap((s) => Object.keys(chunkOf(map, s.file)?.sources ?? {})))].filter(
      (src) => src === 'antd' || src.startsWith('@rc-component/'),
    );
    const boardVerdict = `JS transferred by a first visit of \`/numeros\`: **${kb(boardTotal)} KB** in ${boardScripts.length} files (${kb(boardGz)} KB if sent gzip), **${ratio.toFixed(2)}×** the home page's (goal: at most 1.3×: ${ratio <= 1.3 ? 'met' : 'NOT MET'}); antd: ${boardAntd.length ? boardAntd.join(', ') : 'none'}.`;
    console.log(`${boardVerdict}\n`);

    const section = [
      '## Home page download (JS)',
      '',
      "Command (from the repository root; builds the SPA, provisions its own PostgreSQL and Redis like `npm test`, drives Debian's Chromium):",
      '',
      '```sh',
      'npm run bench:bundle        # node --import tsx bench/bundle.ts',
      '```',
      '',
      `- Date: ${new Date().toISOString()}`,
      machineLine(loadAtStart),
      `- What: a first visit of \`/\` (fresh browser context, empty cache, ${PHONE_VIEWPORT.width}x${PHONE_VIEWPORT.height} viewport) served by the real app with the demo catalogue (${cards} product cards), until the cards are shown and the network is idle. "Sent" is the response body as transferred (Chromium's \`Accept-Encoding: ${acceptEncoding || 'n/a'}\`; the server sends the \`.br\`/\`.gz\` files precompressed at build time); "gzip" is the \`.gz\` sibling on disk, for browsers without brotli.`,
      '- Budget (a first visit of the home page): at most 170 KB of JS (1 KB = 1024 bytes throughout), and no account or admin code for a store visitor. Before this work the same page moved about 1.2 MB of development-build JS, uncompressed (about 314 KB gzip once built for production).',
      '',
      table,
      '',
      verdict,
      '',
      privacy,
      '',
      boardVerdict,
      '',
    ].join('\n');
    if (process.env.BENCH_NO_DOCS === '1') console.log('BENCH_NO_DOCS=1: docs not written.');
    else {
      writeSection(BENCHMARKS_FILE, section);
      console.log('docs/BENCHMARKS.md updated.');
    }
    if (!withinBudget || leaked.length || ratio > 1.3) process.exitCode = 1;
  } finally {
    await browser?.close();
    if (server) {
      server.closeAllConnections();
      await new Promise((r) => server!.close(r));
    }
    if (services) {
      const keys = await services.redis.keys(`${queuePrefix}*`).catch(() => [] as string[]);
      if (keys.length) await services.redis.del(...keys);
      await services.close();
    }
    await dropDatabase(infra.adminDatabaseUrl, dbName);
    await infra.stop();
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
