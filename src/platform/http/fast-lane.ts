import { randomUUID } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Logger } from '../logger';
import type { CachedJson, ReadCache } from '../read-cache';
import { httpDuration } from '../metrics';

export const REQUEST_ID_RE = /^[A-Za-z0-9._-]{8,64}$/;

/** Headers that belong to one response only: the lane writes its own. */
const PER_RESPONSE = new Set(['x-request-id', 'content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding']);

interface Lane {
  cached: CachedJson;
  headers: OutgoingHttpHeaders;
  /** The router path Koa matched (the metrics' route label). */
  route: string;
}

/**
 * The fast lane of the public reads. A public read's answer is the same for every caller and
 * lives in the read cache; serving a hit through Koa still costs its context object and the
 * whole middleware chain, several times the cost of writing the bytes. So, in front of Koa:
 *
 * - Koa serves a public read normally, and the app's first middleware then `remember`s the
 *   URL, the answer object and every header the full chain set (helmet's security headers,
 *   Cache-Control, ETag, Vary, content type).
 * - The next plain GET of that exact URL (no Origin: CORS answers stay with Koa; no
 *   If-None-Match: 304s stay with Koa) is written from node:http with those same headers, a
 *   fresh request id and the same access-log line, as long as the read cache still holds that
 *   answer and it is in the first half of its life. Past that half Koa serves again, which
 *   starts the cache's refresh-ahead; an invalidation drops the answer, so the lane misses at
 *   once.
 *
 * Only URLs Koa answered 200 from the read cache are ever known here: the lane adds no route
 * and no rule of its own. The table is bounded (cleared when full: a flood of odd query strings
 * only costs Koa's path again).
 */
export class PublicReadLane {
  private readonly byUrl = new Map<string, Lane>();

  constructor(
    private readonly cache: ReadCache,
    private readonly logger: Logger,
    private readonly maxUrls = 2000,
  ) {}

  /** Koa side: the answer Koa has just sent for `url`, with the headers of that response. */
  remember(url: string, cached: CachedJson, headers: Record<string, unknown>, route = 'unmatched') {
    const out: OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(headers)) {
      if (v == null || PER_RESPONSE.has(k.toLowerCase())) continue;
      out[k] = v as string | string[] | number;
    }
    if (!this.byUrl.has(url) && this.byUrl.size >= this.maxUrls) this.byUrl.clear();
    this.byUrl.set(url, { cached, headers: out, route });
  }

  /** node:http side: answers and returns true when the lane can; false leaves the request to Koa. */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'GET' || req.headers.origin !== undefined || req.headers['if-none-match'] !== undefined) return false;
    const lane = this.byUrl.get(req.url ?? '');
    if (!lane || !this.cache.isFresh(lane.cached, 0.5)) return false;
    const started = process.hrtime.bigint();
    const incoming = req.headers['x-request-id'];
    const reqId = typeof incoming === 'string' && REQUEST_ID_RE.test(incoming) ? incoming : randomUUID();
    res.writeHead(200, { ...lane.headers, 'X-Request-Id': reqId, 'Content-Length': lane.cached.bytes.length });
    res.end(lane.cached.bytes);
    httpDuration.observe({ method: 'GET', route: lane.route, status: '200' }, Number(process.hrtime.bigint() - started) / 1e9);
    if (this.logger.isLevelEnabled('info')) {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      this.logger.info(
        { reqId, method: 'GET', path: (req.url ?? '').split('?')[0], status: 200, ms: Math.round(ms * 10) / 10, lane: 'read-cache' },
        'request',
      );
    }
    return true;
  }
}
