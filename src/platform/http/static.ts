import type { Context, Next } from 'koa';
import send from 'koa-send';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Serves the built SPA from `dir`: real files (hashed assets cached for a
 * year), and index.html for every other GET outside /api (history fallback).
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
      await send(ctx, file, {
        root: base,
        setHeaders: (res, p) => {
          if (p.includes(`${path.sep}assets${path.sep}`)) res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
        },
      });
      return;
    }
    // Unknown asset-like paths are real 404s; page routes get the app shell.
    if (/\.[a-z0-9]{2,5}$/i.test(file)) return;
    if (!fs.existsSync(index)) return;
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'html';
    ctx.body = fs.createReadStream(index);
  };
}
