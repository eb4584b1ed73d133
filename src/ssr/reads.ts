import { isDomainError } from '../platform/errors';
import type { CachedJson } from '../platform/read-cache';
import type { CatalogueService } from '../catalogue/service';
import type { DrawsService } from '../draws/service';
import type { ResultsService } from '../results/service';
import type { SsrRead, SsrReads } from '../shared/ssr';

/** The public pages rendered on the server (storefront spec §2), by path. */
export type PublicPage =
  | { kind: 'home' }
  | { kind: 'catalogue' }
  | { kind: 'numbers' }
  | { kind: 'legal' }
  /** drawId null: an address that names no draw (the page says "Sorteio não encontrado"). */
  | { kind: 'result'; drawId: number | null };

const LEGAL = new Set(['/termos', '/privacidade', '/jogo-responsavel']);

/** The public page at `path`, or null (any other address keeps the client-rendered app shell). */
export function publicPageOf(path: string): PublicPage | null {
  if (path === '/') return { kind: 'home' };
  if (path === '/infoprodutos') return { kind: 'catalogue' };
  if (path === '/numeros') return { kind: 'numbers' };
  if (LEGAL.has(path)) return { kind: 'legal' };
  const result = /^\/resultado\/([^/]+)$/.exec(path);
  if (result) {
    // The page's own test (web/src/pages/result/ResultPage.tsx): 1 to 10 digits.
    const id = /^\d{1,10}$/.test(result[1]) && Number(result[1]) > 0 && Number(result[1]) <= 2 ** 31 - 1 ? Number(result[1]) : null;
    return { kind: 'result', drawId: id };
  }
  return null;
}

export interface PageReads {
  reads: SsrReads;
  /** 404 when the page shows a draw or result that does not exist. */
  status: number;
}

/** The public reads the API routes answer from (the same services and read cache). */
export interface ReadSources {
  catalogue: Pick<CatalogueService, 'listJson' | 'sectionsJson' | 'publicConfigJson'>;
  draws: Pick<DrawsService, 'getJson' | 'boardJson' | 'listJson'>;
  results: Pick<ResultsService, 'drawResult'>;
}

/** The query the home page's product list sends (web/src/pages/home/useHomeProducts.ts HOME_PRODUCTS_QUERY). */
export const HOME_PRODUCTS_QUERY = { category: 'lotomania', status: 'open', limit: '12', include: 'numbers' };

/** One read as the API answers it: its body, or its not-found error (anything else is thrown). */
async function read(load: () => Promise<CachedJson | unknown>): Promise<SsrRead> {
  try {
    const v = await load();
    const cached = v as Partial<CachedJson>;
    return { data: typeof cached?.json === 'string' && Buffer.isBuffer(cached.bytes) ? JSON.parse(cached.json) : v };
  } catch (e) {
    if (isDomainError(e) && e.kind === 'not_found') return { error: { status: 404, error: e.code, message: e.message } };
    throw e;
  }
}

const is404 = (r: SsrRead | undefined) => !!r && 'error' in r && r.error.status === 404;

/** What `page` shows, read from the public reads (nothing per user). */
export async function readsOf(page: PublicPage, s: ReadSources): Promise<PageReads> {
  switch (page.kind) {
    case 'home':
      return { reads: { 'home-products': await read(() => s.catalogue.listJson(HOME_PRODUCTS_QUERY)) }, status: 200 };
    case 'catalogue':
      return { reads: { 'catalogue-sections': await read(() => s.catalogue.sectionsJson({ onlyOpen: '1' })) }, status: 200 };
    case 'legal':
      return { reads: {}, status: 200 };
    case 'result': {
      if (page.drawId === null) return { reads: {}, status: 404 };
      const id = page.drawId;
      const result = await read(() => s.results.drawResult(id));
      return { reads: { result }, status: is404(result) ? 404 : 200 };
    }
    case 'numbers': {
      const config = await read(() => s.catalogue.publicConfigJson());
      const c = 'data' in config ? (config.data as { current_draw_id?: number | null; draw_id?: number | null }) : null;
      const drawId = c?.current_draw_id ?? c?.draw_id ?? null;
      const [draw, board, closed] = await Promise.all([
        drawId ? read(() => s.draws.getJson(drawId)) : undefined,
        drawId ? read(() => s.draws.boardJson(drawId)) : undefined,
        read(() => s.draws.listJson({ status: 'closed' })),
      ]);
      const reads: SsrReads = { config, 'closed-draws': closed };
      if (draw) reads.draw = draw;
      if (board) reads.board = board;
      return { reads, status: 200 };
    }
  }
}
