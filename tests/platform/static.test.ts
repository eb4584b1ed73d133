/**
 * The built site as the server sends it ("the site people download"): hashed assets
 * cached for a year, the app shell revalidated, brotli/gzip honoured from the files precompressed
 * at build time, dot folders never served, and web/dist a production build of React.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import Koa from 'koa';
import { IMMUTABLE, spa } from '../../src/platform/http/static';

const DIST = path.resolve(__dirname, '../../web/dist');

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function get(base: string, urlPath: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${urlPath}`, { method, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function serve(dir: string): Promise<{ base: string; close(): Promise<void> }> {
  const app = new Koa();
  app.use(spa(dir));
  const server = http.createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('static files: cache headers and precompressed encodings', () => {
  const js = `export const answer = ${JSON.stringify('Cota Verde '.repeat(400))};\n`;
  const html = `<!doctype html><html><body><div id="root"></div>${'<!-- shell -->'.repeat(100)}</body></html>\n`;
  let dir: string;
  let site: Awaited<ReturnType<typeof serve>>;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cv-static-'));
    fs.mkdirSync(path.join(dir, 'assets'));
    fs.mkdirSync(path.join(dir, '.vite'));
    const asset = path.join(dir, 'assets', 'index-AbC123xy.js');
    fs.writeFileSync(asset, js);
    fs.writeFileSync(`${asset}.br`, zlib.brotliCompressSync(js));
    fs.writeFileSync(`${asset}.gz`, zlib.gzipSync(js));
    fs.writeFileSync(path.join(dir, 'index.html'), html);
    fs.writeFileSync(path.join(dir, 'index.html.br'), zlib.brotliCompressSync(html));
    fs.writeFileSync(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    fs.writeFileSync(path.join(dir, '.vite', 'chunks.json'), '{}');
    site = await serve(dir);
  });

  afterAll(async () => {
    await site?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a hashed asset is cached for a year, immutable, in brotli when the browser accepts it', async () => {
    const r = await get(site.base, '/assets/index-AbC123xy.js', { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(r.status).toBe(200);
    expect(r.headers['cache-control']).toBe(IMMUTABLE);
    expect(r.headers['content-encoding']).toBe('br');
    expect(r.headers['content-type']).toMatch(/javascript/);
    expect(r.headers.vary).toMatch(/Accept-Encoding/i);
    expect(Number(r.headers['content-length'])).toBe(r.body.length);
    expect(r.body.length).toBeLessThan(js.length / 10);
    expect(zlib.brotliDecompressSync(r.body).toString()).toBe(js);
  });

  it('gzip when brotli is not accepted, the plain file when nothing is', async () => {
    const gz = await get(site.base, '/assets/index-AbC123xy.js', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers['cache-control']).toBe(IMMUTABLE);
    expect(zlib.gunzipSync(gz.body).toString()).toBe(js);

    const plain = await get(site.base, '/assets/index-AbC123xy.js', { 'accept-encoding': 'identity' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['cache-control']).toBe(IMMUTABLE);
    expect(plain.body.toString()).toBe(js);

    const none = await get(site.base, '/assets/index-AbC123xy.js');
    expect(none.headers['content-encoding']).toBeUndefined();
    expect(none.body.toString()).toBe(js);
  });

  it('HEAD answers the same headers without a body', async () => {
    const r = await get(site.base, '/assets/index-AbC123xy.js', { 'accept-encoding': 'br' }, 'HEAD');
    expect(r.status).toBe(200);
    expect(r.headers['content-encoding']).toBe('br');
    expect(r.headers['cache-control']).toBe(IMMUTABLE);
    expect(r.body.length).toBe(0);
  });

  it('the app shell (/, a page route, /index.html) is revalidated on every visit', async () => {
    for (const p of ['/', '/conta', '/comprar/EBOOK-1', '/index.html']) {
      const r = await get(site.base, p, { 'accept-encoding': 'br' });
      expect({ p, status: r.status }).toEqual({ p, status: 200 });
      expect(r.headers['cache-control']).toBe('no-cache');
      expect(r.headers['content-type']).toMatch(/text\/html/);
      expect(r.headers['content-encoding']).toBe('br');
      expect(zlib.brotliDecompressSync(r.body).toString()).toBe(html);
    }
    // Without a .gz sibling, a gzip-only browser gets the plain file.
    const gz = await get(site.base, '/', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBeUndefined();
    expect(gz.body.toString()).toBe(html);
  });

  it('other files are not cached as immutable; dot folders and unknown assets are 404', async () => {
    const icon = await get(site.base, '/favicon.svg');
    expect(icon.status).toBe(200);
    expect(icon.headers['cache-control'] ?? '').not.toMatch(/immutable/);
    expect((await get(site.base, '/.vite/chunks.json')).status).toBe(404);
    expect((await get(site.base, '/assets/missing-XyZ.js')).status).toBe(404);
  });
});

describe('web/dist is a production build, precompressed', () => {
  let site: Awaited<ReturnType<typeof serve>>;

  beforeAll(async () => {
    if (!fs.existsSync(path.join(DIST, 'index.html'))) {
      throw new Error('web/dist/index.html is missing: build the SPA first (npm run build:web, or npm test without SKIP_WEB_BUILD).');
    }
    site = await serve(DIST);
  });

  afterAll(async () => {
    await site?.close();
  });

  const scripts = () => fs.readdirSync(path.join(DIST, 'assets')).filter((f) => f.endsWith('.js'));

  it("has React's production build: no jsxDEV, no development warnings, no absolute source paths", () => {
    expect(scripts().length).toBeGreaterThan(1);
    const root = path.resolve(__dirname, '../..');
    for (const f of scripts()) {
      const code = fs.readFileSync(path.join(DIST, 'assets', f), 'utf8');
      expect({ f, jsxDEV: code.includes('jsxDEV') }).toEqual({ f, jsxDEV: false });
      expect({ f, devWarning: code.includes('Warning: Each child in a list should have a unique') }).toEqual({ f, devWarning: false });
      expect({ f, sourcePath: code.includes(root) }).toEqual({ f, sourcePath: false });
    }
  });

  it('every script is precompressed, and the server sends the brotli file with the immutable cache header', async () => {
    const index = await get(site.base, '/', { 'accept-encoding': 'br' });
    expect(index.headers['cache-control']).toBe('no-cache');
    const shell = zlib.brotliDecompressSync(index.body).toString();
    const entry = /<script type="module" crossorigin src="(\/assets\/[^"]+\.js)"/.exec(shell)?.[1];
    expect(entry).toBeDefined();

    for (const f of scripts()) {
      const size = fs.statSync(path.join(DIST, 'assets', f)).size;
      if (size < 1024) continue;
      expect({
        f,
        br: fs.existsSync(path.join(DIST, 'assets', `${f}.br`)),
        gz: fs.existsSync(path.join(DIST, 'assets', `${f}.gz`)),
      }).toEqual({ f, br: true, gz: true });
    }

    const r = await get(site.base, entry!, { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(r.status).toBe(200);
    expect(r.headers['content-encoding']).toBe('br');
    expect(r.headers['cache-control']).toBe(IMMUTABLE);
    expect(zlib.brotliDecompressSync(r.body).equals(fs.readFileSync(path.join(DIST, entry!)))).toBe(true);
  });
});
