/**
 * What the bundle bench (bench/bundle.ts) and the browser test of the home page's download
 * (tests/e2e/bundle.e2e.test.ts) share: the JS responses a page load received, with the bytes that
 * went over the wire, and the build's chunk map (web/dist/.vite/chunks.json, written by
 * web/vite.config.mts) to say what is inside each chunk.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page, Request } from 'playwright-core';

export const WEB_DIST = path.resolve(__dirname, '../../web/dist');

/**
 * The site's own budget (docs/BENCHMARKS.md, the home page's JS): JS the home page's first visit
 * transfers, compressed.
 */
export const HOME_JS_BUDGET_BYTES = 170 * 1024;

/** Sources that belong to the customer area and the admin console: never downloaded by a store visitor. */
export const PRIVATE_SOURCES = /^web\/src\/pages\/(account|admin)\//;

export interface ChunkInfo {
  name: string;
  isEntry: boolean;
  isDynamicEntry: boolean;
  /** Source (web/src/… file or npm package) → bytes it occupies in the chunk. */
  sources: Record<string, number>;
}

export interface ScriptResponse {
  /** Path of the file, e.g. /assets/index-AbC123.js. */
  file: string;
  status: number;
  encoding: string | null;
  /** Response body bytes as sent (compressed when Content-Encoding is set). */
  transferred: number;
  /** Size of the file on disk, uncompressed. */
  raw: number;
}

export function readChunkMap(): Record<string, ChunkInfo> {
  const file = path.join(WEB_DIST, '.vite', 'chunks.json');
  if (!fs.existsSync(file)) throw new Error('web/dist/.vite/chunks.json is missing: build the SPA first (npm run build:web).');
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/**
 * Runs `load` (e.g. a page.goto and a wait for the content) and returns every script response the
 * page received meanwhile, after the network has gone quiet (lazily loaded chunks included).
 */
export async function recordScripts(page: Page, load: () => Promise<void>): Promise<ScriptResponse[]> {
  const pending: Array<Promise<ScriptResponse | null>> = [];
  const onFinished = (req: Request) => {
    if (req.resourceType() !== 'script') return;
    pending.push(
      (async () => {
        const res = await req.response();
        if (!res) return null;
        const sizes = await req.sizes();
        const file = new URL(req.url()).pathname;
        const onDisk = path.join(WEB_DIST, file);
        return {
          file,
          status: res.status(),
          encoding: (await res.allHeaders())['content-encoding'] ?? null,
          transferred: sizes.responseBodySize,
          raw: fs.existsSync(onDisk) ? fs.statSync(onDisk).size : sizes.responseBodySize,
        };
      })(),
    );
  };
  page.on('requestfinished', onFinished);
  try {
    await load();
    await page.waitForLoadState('networkidle');
  } finally {
    page.off('requestfinished', onFinished);
  }
  return (await Promise.all(pending)).filter((r): r is ScriptResponse => r !== null);
}

/** The chunk-map entry of a downloaded script (by its /assets/… path). */
export function chunkOf(map: Record<string, ChunkInfo>, file: string): ChunkInfo | undefined {
  return map[file.replace(/^\//, '')];
}

/** Sources of the downloaded scripts that belong to the account or admin code. */
export function privateSourcesIn(map: Record<string, ChunkInfo>, scripts: ScriptResponse[]): string[] {
  return scripts.flatMap((s) =>
    Object.keys(chunkOf(map, s.file)?.sources ?? {})
      .filter((src) => PRIVATE_SOURCES.test(src))
      .map((src) => `${s.file}: ${src}`),
  );
}

/** The heaviest sources of a chunk (bytes as rendered into it, before minification). */
export function topSources(chunk: ChunkInfo | undefined, n = 3): string {
  if (!chunk) return '';
  return Object.entries(chunk.sources)
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([src, bytes]) => `${src} ${(bytes / 1024).toFixed(1)} KB`)
    .join(', ');
}
