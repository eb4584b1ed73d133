/**
 * First paint of the public pages on a slow phone, server-rendered (WEB_SSR=on) next to the
 * client-rendered build (WEB_SSR=off), in one run:
 *
 *   node --import tsx bench/first-paint.ts      (npm run bench:first-paint)
 *   RUNS=7 …                                    (loads per page and mode; default 5)
 *   BENCH_SKIP_BUILD=1 …                        (measure web/dist and web/dist-ssr as they are)
 *   BENCH_NO_DOCS=1 …                           (print only; docs/BENCHMARKS.md untouched)
 *   BENCH_PAGES=/numeros,/ …                    (only these pages; prints each load's LCP element)
 *
 * 1. Builds the site (vite build: web/dist and web/dist-ssr) unless told not to.
 * 2. Provisions PostgreSQL + Redis like `npm test`, a throw-away database with the demo catalogue,
 *    a few numbers sold and one decided draw (for /resultado/{id}).
 * 3. Starts the real app twice on that database: WEB_SSR=on and WEB_SSR=off.
 * 4. Loads each public page RUNS times per mode, the modes taking turns, each load in a fresh
 *    Chromium context (empty cache, 390x844) throttled through CDP: 150 ms latency, 1.6 Mbps down
 *    and up (Network.emulateNetworkConditions), CPU 4x slower (Emulation.setCPUThrottlingRate).
 *    FCP is the 'first-contentful-paint' entry; LCP the last 'largest-contentful-paint' entry
 *    once the page's content is on screen and no new entry came for a second.
 * 5. Prints the medians and writes the section "First paint (server-rendered vs client-rendered)"
 *    of docs/BENCHMARKS.md, with `uptime` at the start and at the end.
 */
import { execSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { BENCHMARKS_FILE, dropDatabase, machineLine, writeSection } from './lib';
import { launchChromium } from '../tests/helpers/browser';
import { WEB_DIST } from '../tests/helpers/bundle';

const ROOT = path.resolve(__dirname, '..');
const RUNS = Math.max(1, Number(process.env.RUNS ?? 5));
const VIEWPORT = { width: 390, height: 844 };
/** 1.6 Mbps in bytes per second. */
const THROUGHPUT = 1.6e6 / 8;
const GOAL = { fcp: 1200, lcp: 2500 };

interface Load {
  /** When the document's last byte arrived (navigation timing responseEnd). */
  html: number | null;
  fcp: number | null;
  lcp: number | null;
  htmlBytes: number;
}

function build() {
  console.log('vite build (production, client and server)…');
  const r = spawnSync(
    process.execPath,
    [path.join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'web/vite.config.mts', '--logLevel', 'warn'],
    { cwd: ROOT, env: { ...process.env, NODE_ENV: 'production' }, stdio: 'inherit' },
  );
  if (r.status !== 0) throw new Error('vite build failed');
}

const median = (xs: number[]) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const ms = (v: number | null) => (v === null ? 'n/a' : `${(v / 1000).toFixed(2)} s`);

/** One load of `url` in a fresh, throttled context; resolves once `ready` is shown and LCP settled. */
async function measure(browser: Browser, url: string, ready: string): Promise<Load> {
  const context = await browser.newContext({ viewport: VIEWPORT, locale: 'pt-BR' });
  try {
    const page = await context.newPage();
    await page.addInitScript(() => {
      const w = globalThis as unknown as { __lcp: number | null; __lcpAt: number; __lcpEl: string };
      w.__lcp = null;
      w.__lcpAt = 0;
      w.__lcpEl = '';
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) {
          w.__lcp = e.startTime;
          w.__lcpAt = performance.now();
          const el = (e as unknown as { element?: { tagName: string; className: string } | null }).element;
          w.__lcpEl = el ? `${el.tagName.toLowerCase()}.${String(el.className).split(' ')[0]}` : '';
        }
      }).observe({ type: 'largest-contentful-paint', buffered: true } as any);
    });
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 150,
      downloadThroughput: THROUGHPUT,
      uploadThroughput: THROUGHPUT,
    });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    let htmlBytes = 0;
    let documentId = '';
    cdp.on('Network.responseReceived', (e) => {
      if (e.type === 'Document' && !documentId) documentId = e.requestId;
    });
    cdp.on('Network.loadingFinished', (e) => {
      if (e.requestId === documentId) htmlBytes = e.encodedDataLength;
    });
    await page.goto(url, { waitUntil: 'load', timeout: 120_000 });
    await page.locator(ready).first().waitFor({ timeout: 120_000 });
    // LCP settles: no new candidate for a second after the content is on screen.
    await page.waitForFunction(
      () => {
        const w = globalThis as unknown as { __lcp: number | null; __lcpAt: number };
        return w.__lcp !== null && performance.now() - w.__lcpAt > 1000;
      },
      undefined,
      { timeout: 120_000, polling: 250 },
    );
    const out = await page.evaluate(() => {
      const w = globalThis as unknown as { __lcp: number | null; __lcpEl: string };
      const fcp = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null;
      const nav = (performance as any).getEntriesByType('navigation')[0] as { responseEnd?: number } | undefined;
      return { html: nav?.responseEnd ?? null, fcp, lcp: w.__lcp, lcpElement: w.__lcpEl };
    });
    if (process.env.BENCH_PAGES) console.log(`  ${url}: FCP ${out.fcp?.toFixed(0)} ms, LCP ${out.lcp?.toFixed(0)} ms on ${out.lcpElement}`);
    return { ...out, htmlBytes };
  } finally {
    await context.close();
  }
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
  const { createUser } = await import('../tests/helpers/context');
  const { makeDraw, range, sellDirectly } = await import('../tests/draws/fixtures');

  const loadAtStart = os.loadavg();
  const uptimeAtStart = execSync('uptime').toString().trim();
  const dbName = `cv_bench_fp_${process.pid}`;
  const infra = await provisionServices('test', dbName);
  const queuePrefix = `cvfirstpaint${process.pid}`;
  const all: Array<ReturnType<typeof createServices>> = [];
  const servers: http.Server[] = [];
  let browser: Browser | null = null;
  try {
    const db = createDb(infra.databaseUrl, 2);
    try {
      await migrateLatest(db);
      process.env.NODE_ENV = 'test';
      await seedDemo(db);
    } finally {
      await db.destroy();
    }
    const start = async (ssr: 'on' | 'off') => {
      const services = createServices({
        config: loadConfig({
          ...process.env,
          NODE_ENV: 'test',
          DATABASE_URL: infra.databaseUrl,
          REDIS_URL: infra.redisUrl,
          QUEUE_PREFIX: queuePrefix,
          LOG_LEVEL: 'silent',
          RATE_LIMIT_DISABLED: 'true',
          WEB_SSR: ssr,
        }),
      });
      all.push(services);
      const server = http.createServer(createApp(services, { serveWeb: true, webDir: WEB_DIST }).callback());
      servers.push(server);
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      return { services, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    };
    const on = await start('on');
    const off = await start('off');

    // Some numbers sold on the current draw, and a decided draw for the result page.
    const t = { services: on.services } as Parameters<typeof createUser>[0];
    const drawId = (await on.services.catalogue.publicConfig()).current_draw_id as number;
    await sellDirectly(t, drawId, (await createUser(t, { name: 'Beatriz Nogueira' })).user.id, [3, 14, 15, 42, 77]);
    const decided = await makeDraw(t, { title: 'Sorteio decidido' });
    await sellDirectly(t, decided.id, (await createUser(t, { name: 'Caio Prado' })).user.id, range(0, 100));
    const drawnAt = new Date(Date.now() - 2 * 86_400_000);
    await on.services
      .db('draws')
      .where({ id: decided.id })
      .update({ status: 'closed', closed_at: new Date(drawnAt.getTime() - 3600_000) });
    await on.services.results.record(
      { contest_number: 2951, numbers: [5, 12, 18, 23, 27, 31, 38, 44, 49, 52, 57, 61, 66, 70, 74, 79, 83, 88, 91, 97], drawn_at: drawnAt },
      { actorUserId: null, actor: 'cli', source: 'cli' },
    );
    on.services.readCache.invalidateAll();
    off.services.readCache.invalidateAll();

    const pages = [
      { path: '/', ready: 'article.product-card' },
      { path: '/infoprodutos', ready: '#conteudo h1' },
      { path: '/numeros', ready: '#numbers-board-title' },
      { path: `/resultado/${decided.id}`, ready: '.result-page h1' },
      { path: '/termos', ready: '#conteudo h1' },
    ];
    const only = (process.env.BENCH_PAGES ?? '').split(',').filter(Boolean);
    const chosen = only.length ? pages.filter((p) => only.some((o) => p.path.startsWith(o) && (o !== '/' || p.path === '/'))) : pages;
    browser = await launchChromium();
    const results: Array<{ path: string; ssr: Load[]; csr: Load[]; cold: Load | null }> = [];
    for (const p of chosen) {
      const row = { path: p.path, ssr: [] as Load[], csr: [] as Load[], cold: null as Load | null };
      // A warm-up load per mode (server caches, Chromium's own start-up), not counted; the SSR one
      // is the page's first render (src/ssr keeps a rendered page while its reads stay the same).
      const cold = await measure(browser, on.url + p.path, p.ready);
      await measure(browser, off.url + p.path, p.ready);
      for (let i = 0; i < RUNS; i++) {
        row.ssr.push(await measure(browser, on.url + p.path, p.ready));
        row.csr.push(await measure(browser, off.url + p.path, p.ready));
      }
      row.cold = cold;
      results.push(row);
      const m = (ls: Load[], k: 'html' | 'fcp' | 'lcp') => ms(median(ls.map((l) => l[k]).filter((v): v is number => v !== null)));
      console.log(
        `${p.path}: SSR FCP ${m(row.ssr, 'fcp')} LCP ${m(row.ssr, 'lcp')} | CSR FCP ${m(row.csr, 'fcp')} LCP ${m(row.csr, 'lcp')}`,
      );
    }
    const uptimeAtEnd = execSync('uptime').toString().trim();

    const med = (ls: Load[], k: 'html' | 'fcp' | 'lcp' | 'htmlBytes') => median(ls.map((l) => l[k]).filter((v): v is number => v !== null));
    const kb = (v: number | null) => (v === null ? 'n/a' : (v / 1024).toFixed(1));
    const verdict = (l: Load[]) => {
      const f = med(l, 'fcp');
      const c = med(l, 'lcp');
      return f !== null && c !== null && f <= GOAL.fcp && c <= GOAL.lcp ? 'yes' : 'no';
    };
    const table = [
      '| Page | SSR FCP | SSR LCP | SSR HTML received | SSR HTML received, first render | SSR HTML (KB sent) | CSR FCP | CSR LCP | CSR HTML (KB sent) | SSR within goal |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
      ...results.map(
        (r) =>
          `| \`${r.path.replace(/\d+$/, '{id}')}\` | **${ms(med(r.ssr, 'fcp'))}** | **${ms(med(r.ssr, 'lcp'))}** | ${ms(med(r.ssr, 'html'))} | ${ms(r.cold?.html ?? null)} | ${kb(med(r.ssr, 'htmlBytes'))} | ${ms(med(r.csr, 'fcp'))} | ${ms(med(r.csr, 'lcp'))} | ${kb(med(r.csr, 'htmlBytes'))} | ${verdict(r.ssr)} |`,
      ),
    ].join('\n');
    console.log(`\n${table}\n`);
    const section = [
      '## First paint (server-rendered vs client-rendered)',
      '',
      "Command (from the repository root; builds the site, provisions its own PostgreSQL and Redis like `npm test`, drives Debian's Chromium):",
      '',
      '```sh',
      `npm run bench:first-paint        # node --import tsx bench/first-paint.ts (RUNS=${RUNS})`,
      '```',
      '',
      `- Date: ${new Date().toISOString()}`,
      machineLine(loadAtStart),
      `- \`uptime\` at the start: \`${uptimeAtStart}\`; at the end: \`${uptimeAtEnd}\`.`,
      `- What: each public page loaded ${RUNS} times per mode (after one uncounted warm-up load each), the two modes taking turns, every load in a fresh Chromium context (empty cache, ${VIEWPORT.width}x${VIEWPORT.height}) throttled through CDP: 150 ms latency, 1.6 Mbps down and up, CPU 4x slower. SSR is the app with \`WEB_SSR=on\` (HTML rendered by the web process, CSS inline, hydrated in the browser); CSR the same build with \`WEB_SSR=off\` (the empty app shell, everything painted by the JavaScript). Same database (demo catalogue, 5 numbers sold, one decided draw), same server process. The counted SSR loads are served from the page's render kept by the web process (same reads; src/ssr/handler.ts), as a busy page is; "first render" is the warm-up load's HTML time, when the page was rendered for that request. Medians; FCP = \`first-contentful-paint\`, LCP = the last \`largest-contentful-paint\` entry once the page's content is shown and no new entry came for a second. "HTML sent" is the document's bytes on the wire (brotli for SSR pages, precompressed \`index.html\` for CSR).`,
      `- Goal: FCP ≤ ${GOAL.fcp / 1000} s and LCP ≤ ${GOAL.lcp / 1000} s.`,
      '',
      table,
      '',
    ].join('\n');
    if (process.env.BENCH_NO_DOCS === '1') console.log('BENCH_NO_DOCS=1: docs not written.');
    else {
      writeSection(BENCHMARKS_FILE, section);
      console.log('docs/BENCHMARKS.md updated.');
    }
  } finally {
    await browser?.close();
    for (const s of servers) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
    for (const services of all) {
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
