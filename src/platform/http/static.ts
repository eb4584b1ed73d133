import type { ServerResponse } from 'node:http';
import type { Context, Next } from 'koa';
import send from 'koa-send';
import fs from 'node:fs';
import path from 'node:path';

/** Vite names the files of web/dist/assets after their content: a new build gives new names. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * Cache and encoding headers of a file koa-send is about to send (`file` is the path on disk,
 * possibly the precompressed `.br`/`.gz` sibling):
 * - hashed assets (`/assets/…`) are cached for a year and never revalidated;
 * - HTML (the app shell) is revalidated on every visit, so a new build is picked up at once;
 * - anything that may exist precompressed varies by Accept-Encoding, for shared caches.
 */
function setHeaders(res: ServerResponse, file: string) {
  const original = file.replace(/\.(br|gz)$/, '');
  if (original.includes(`${path.sep}assets${path.sep}`)) res.setHeader('Cache-Control', IMMUTABLE);
  else if (original.endsWith('.html')) res.setHeader('Cache-Control', 'no-cache');
  if (/\.(js|css|html|svg|json)$/.test(original)) res.setHeader('Vary', 'Accept-Encoding');
}

/**
 * Serves the built SPA from `dir`: real files, and index.html for every other GET outside /api
 * (history fallback). Files precompressed at build time (`<file>.br`, `<file>.gz`, written by
 * web/vite.config.mts) are sent to browsers that accept brotli or gzip (koa-send picks them, brotli
 * first), so nothing is compressed per request. Dot files and folders (e.g. `.vite/`) are never sent.
 */
export function spa(dir: string, publicDir?: string) {
  const root = path.resolve(dir);
  const index = path.join(root, 'index.html');
  const roots = [root, ...(publicDir ? [path.resolve(publicDir)] : [])];
  return async (ctx: Context, next: Next) => {
    await next();
    if (ctx.body != null || ctx.status !== 404) return;
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return;
    if (ctx.path.startsWith('/api')) return;
    let file: string;
    try {
      file = decodeURIComponent(ctx.path);
    } catch {
      return;
    }
    const base = roots.find((r) => {
      const candidate = path.join(r, file);
      return candidate.startsWith(r + path.sep) && fs.existsSync(candidate) && fs.statSync(candidate).isFile();
    });
    if (base) {
      await send(ctx, file, { root: base, setHeaders });
      return;
    }
    // Unknown asset-like paths are real 404s; page routes get the app shell.
    if (/\.[a-z0-9]{2,5}$/i.test(file)) return;
    if (!fs.existsSync(index)) return;
    await send(ctx, 'index.html', { root, setHeaders });
  };
}
