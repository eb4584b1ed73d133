import { createHash } from 'node:crypto';
import type { Context, Next } from 'koa';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Logger } from '../platform/logger';
import { scriptSafeJson, SSR_SEEDS_ID, type SsrReads, type SsrSeeds } from '../shared/ssr';
import { ENTRY, WebBuild } from './assets';
import { publicPageOf, readsOf, type PublicPage, type ReadSources } from './reads';

/** web/src/entry-server.tsx as built (web/dist-ssr/entry-server.cjs). */
interface Renderer {
  render(url: string, reads: SsrReads, opts?: { timeoutMs?: number }): Promise<{ html: string; styles: string; seeds: SsrSeeds }>;
}

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Below AntdOutlet, the lazily loaded component each public page renders (manifest keys, web/src/router.tsx). */
const ANTD_OUTLET = 'src/antd/AntdOutlet.tsx';
const PAGE_SOURCES: Record<string, string> = {
  catalogue: 'src/pages/catalogue/CataloguePage.tsx',
  numbers: 'src/pages/numbers/NumbersPage.tsx',
  result: 'src/pages/result/ResultPage.tsx',
  '/termos': 'src/pages/legal/TermsPage.tsx',
  '/privacidade': 'src/pages/legal/PrivacyPage.tsx',
  '/jogo-responsavel': 'src/pages/legal/ResponsibleGamingPage.tsx',
};

function lazySourcesOf(page: PublicPage, pathname: string): string[] {
  if (page.kind === 'home') return [];
  const source = PAGE_SOURCES[page.kind === 'legal' ? pathname : page.kind];
  // /numeros renders outside AntdOutlet (it loads no antd: its JS stays within 1.3× the home page's).
  if (page.kind === 'numbers') return source ? [source] : [];
  return source ? [ANTD_OUTLET, source] : [ANTD_OUTLET];
}

/**
 * The page: the built index.html with the rendered markup in #root, the CSS it needs inline (the
 * app's stylesheet and the page chunk's, found through Vite's manifest, whose <link>s would block
 * the first paint, and antd's extracted styles), and the seeds as JSON.
 */
export function assemble(
  build: WebBuild,
  page: PublicPage,
  pathname: string,
  r: { html: string; styles: string; seeds: SsrSeeds },
): string {
  const entry = build.assetsOf([ENTRY]);
  const route = build.assetsOf([ENTRY, ...lazySourcesOf(page, pathname)]);
  let html = build.template();
  // The entry's stylesheets become inline CSS (render-blocking requests on a slow phone otherwise).
  for (const css of entry.css)
    html = html.replace(new RegExp(`\\s*<link rel="stylesheet"[^>]*href="/${css.replace(/[.]/g, '\\.')}"[^>]*>`), '');
  const inlineCss = route.css.map((f) => build.cssText(f)).join('\n');
  // No modulepreload of the page's chunks: on a 1.6 Mbps link they took the bandwidth the page's
  // images needed (bench/first-paint.ts: /infoprodutos LCP 3.2 s with them, 1.8 s without); the
  // entry loads them when it runs, and the HTML is on screen meanwhile.
  const head = `<style data-cv-css>${inlineCss.replace(/<\/style/gi, '<\\/style')}</style>${r.styles}`;
  html = html.replace('</head>', `${head}</head>`);
  html = html.replace('<div id="root"></div>', `<div id="root">${r.html}</div>`);
  html = html.replace('</body>', `<script id="${SSR_SEEDS_ID}" type="application/json">${scriptSafeJson(r.seeds)}</script></body>`);
  return html;
}

/** A page as sent: its status and bytes, and their compressed forms once asked for. */
interface Page {
  status: number;
  raw: Buffer;
  br?: Promise<Buffer>;
  gz?: Promise<Buffer>;
}

/**
 * Rendered pages by address and by the exact reads they were rendered from, for 30 s: a burst of
 * visitors (a WhatsApp group sent to /numeros) costs one render and one compression while the data
 * stays the same; any change of the data is a new key, so the TTL bounds only what depends on the
 * clock (the home page's expected draw day). Concurrent misses share one render; failures are not kept.
 */
export class RenderedPages {
  private readonly entries = new Map<string, { at: number; page: Promise<Page> }>();

  constructor(
    private readonly ttlMs = 30_000,
    private readonly max = 100,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string, build: () => Promise<Page>): Promise<Page> {
    const t = this.now();
    const hit = this.entries.get(key);
    if (hit && t - hit.at < this.ttlMs) return hit.page;
    if (hit) this.entries.delete(key);
    const page = build();
    this.entries.set(key, { at: t, page });
    page.catch(() => {
      if (this.entries.get(key)?.page === page) this.entries.delete(key);
    });
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
    return page;
  }
}

const compressed = (page: Page, encoding: 'br' | 'gzip'): Promise<Buffer> => {
  if (encoding === 'br')
    return (page.br ??= brotli(page.raw, {
      params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: page.raw.length },
    }));
  return (page.gz ??= gzip(page.raw, { level: 6 }));
};

/**
 * Server-rendered public pages (/, /infoprodutos, /numeros, /resultado/{id}, the legal pages):
 * the public reads those pages show, from the same services and read cache the API answers from,
 * rendered by web/dist-ssr/entry-server.cjs into the built index.html. Any other address, and any
 * failure here (no server build, a component that fails on the server), falls through to the
 * client-rendered app shell (platform/http/static.ts). WEB_SSR=off leaves this out (src/http.ts).
 */
export function ssrPages(opts: { webDir: string; sources: ReadSources; logger: Logger; renderFile?: string }) {
  const webDir = path.resolve(opts.webDir);
  const renderFile = opts.renderFile ?? path.join(path.dirname(webDir), 'dist-ssr', 'entry-server.cjs');
  const build = new WebBuild(webDir);
  const pages = new RenderedPages();
  let renderer: Renderer | null = null;
  let missingLogged = false;

  const load = (): Renderer | null => {
    if (renderer) return renderer;
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      renderer = require(renderFile) as Renderer;
    } catch (err) {
      if (!missingLogged)
        opts.logger.warn({ err: (err as Error).message, renderFile }, 'ssr: sem o build do servidor; páginas renderizadas no navegador');
      missingLogged = true;
    }
    return renderer;
  };

  return async (ctx: Context, next: Next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const page = publicPageOf(ctx.path);
    const r = page && load();
    if (!page || !r) return next();
    const started = performance.now();
    let sent: Page;
    try {
      const reads = await readsOf(page, opts.sources);
      const key = `${build.version()}\n${ctx.url}\n${createHash('sha1').update(JSON.stringify(reads)).digest('base64url')}`;
      sent = await pages.get(key, async () => {
        const rendered = await r.render(ctx.url, reads.reads);
        return { status: reads.status, raw: Buffer.from(assemble(build, page, ctx.path, rendered), 'utf8') };
      });
    } catch (err) {
      opts.logger.warn({ err: (err as Error).message, path: ctx.path }, 'ssr: página não renderizada no servidor; enviada a do navegador');
      return next();
    }
    const encoding = sent.raw.length >= 1024 ? ctx.acceptsEncodings('br', 'gzip', 'identity') : 'identity';
    ctx.status = sent.status;
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Cache-Control', 'no-cache');
    ctx.vary('Accept-Encoding');
    if (encoding === 'br' || encoding === 'gzip') {
      ctx.set('Content-Encoding', encoding);
      ctx.body = await compressed(sent, encoding);
    } else ctx.body = sent.raw;
    ctx.set('Server-Timing', `ssr;dur=${(performance.now() - started).toFixed(1)}`);
  };
}
