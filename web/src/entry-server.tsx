/**
 * The server render of the public pages (src/ssr renders with it; `vite build` makes it into
 * web/dist-ssr, see vite.config.mts): the same routes and components as the browser, with a static
 * router, one react-query client and one antd style cache per request, and the public reads the
 * web process read for the page (src/shared/ssr.ts). The HTML is complete (onAllReady: every lazily
 * loaded page is in it), and the seeds it returns are embedded in the page for main.tsx to hydrate
 * with the same data.
 */
import { PassThrough } from 'node:stream';
import { renderToPipeableStream } from 'react-dom/server';
import { createStaticHandler, createStaticRouter, StaticRouterProvider } from 'react-router-dom';
import { createCache, extractStyle, StyleProvider } from '@ant-design/cssinjs';
import { QueryClient } from '@tanstack/react-query';
import dayjs from 'dayjs';
import 'dayjs/locale/pt-br';
import type { SsrReads, SsrSeeds } from '../../src/shared/ssr';
import { AuthProvider } from './auth/AuthProvider';
import type { Board } from './pages/numbers/board';
import { awaitingDraw } from './pages/numbers/hooks/useNumbersData';
import type { Draw, PublicConfig } from './api/types';
import { qk, RequestQueryClient } from './query';
import { routes } from './router';
import { SeedContext } from './ssr/seeds';

dayjs.locale('pt-br');

export interface Rendered {
  /** The markup of #root. */
  html: string;
  /** antd's styles of that markup (`<style>` elements), for the page's <head>. */
  styles: string;
  /** What the page embeds for the browser's first render. */
  seeds: SsrSeeds;
}

const dataOf = <T,>(reads: SsrReads, name: keyof SsrReads): T | undefined => {
  const r = reads[name];
  return r && 'data' in r ? (r.data as T) : undefined;
};

/**
 * The react-query entries of /numeros, under the keys its hooks read (pages/numbers/hooks/
 * useNumbersData.ts): the config, the draw it names as current, that draw and its board, the
 * closed draws awaiting their contest.
 */
export function numbersQueries(reads: SsrReads): SsrSeeds['queries'] {
  const out: SsrSeeds['queries'] = [];
  const config = dataOf<PublicConfig>(reads, 'config');
  if (!config) return out;
  out.push({ key: qk.config, data: config });
  const drawId = config.current_draw_id ?? config.draw_id ?? null;
  out.push({ key: qk.drawId(`config:${drawId ?? ''}`), data: drawId });
  const draw = dataOf<Draw>(reads, 'draw');
  const board = dataOf<Board>(reads, 'board');
  if (drawId && draw) out.push({ key: qk.draw(drawId), data: draw });
  if (drawId && board) out.push({ key: qk.board(drawId), data: board });
  const closed = dataOf<{ items?: Draw[] }>(reads, 'closed-draws');
  if (closed) out.push({ key: [...qk.closedDraws, 0], data: awaitingDraw(Array.isArray(closed.items) ? closed.items : []) });
  return out;
}

/** Renders `url` (path and query) with `reads`; rejects when a component fails or after `timeoutMs`. */
export async function render(url: string, reads: SsrReads, opts: { timeoutMs?: number } = {}): Promise<Rendered> {
  const handler = createStaticHandler(routes);
  const context = await handler.query(new Request(new URL(url, 'http://localhost')));
  if (context instanceof Response) throw new Error(`rota respondeu ${context.status}`);
  const router = createStaticRouter(handler.dataRoutes, context);
  const seeds: SsrSeeds = { reads, queries: numbersQueries(reads) };
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  const styleCache = createCache();

  const html = await new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let failure: unknown = null;
    const sink = new PassThrough();
    sink.on('data', (c: Buffer) => chunks.push(c));
    sink.on('end', () => (failure ? reject(failure) : resolve(Buffer.concat(chunks).toString('utf8'))));
    const stream = renderToPipeableStream(
      <SeedContext.Provider value={seeds}>
        <RequestQueryClient.Provider value={queryClient}>
          <StyleProvider cache={styleCache}>
            <AuthProvider>
              <StaticRouterProvider router={router} context={context} hydrate={false} />
            </AuthProvider>
          </StyleProvider>
        </RequestQueryClient.Provider>
      </SeedContext.Provider>,
      {
        // Every Suspense boundary inline, however large: never a fallback plus a hidden copy that only
        // an inline script (refused by the CSP, absent without JavaScript) would reveal.
        progressiveChunkSize: Number.MAX_SAFE_INTEGER,
        onAllReady() {
          clearTimeout(timer);
          stream.pipe(sink);
        },
        onShellError(err) {
          clearTimeout(timer);
          reject(err);
        },
        onError(err) {
          // A component that failed here would be rendered again by the browser: not this page's HTML.
          failure ??= err;
        },
      },
    );
    const timer = setTimeout(() => stream.abort(new Error('render do servidor excedeu o tempo')), opts.timeoutMs ?? 5000);
  });
  queryClient.clear();
  return { html, styles: extractStyle(styleCache), seeds };
}
