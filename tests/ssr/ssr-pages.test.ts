/**
 * The server-rendered public pages (src/ssr): status, content type, the page's markup in #root,
 * the seeds embedded as JSON that cannot close their <script>, 404 pages for a draw or result that
 * does not exist, nothing private in the page, the client shell for the other addresses, and
 * WEB_SSR=off. Needs the web build (web/dist and web/dist-ssr, `npm run build:web`).
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { makeDraw, range, sellDirectly } from '../draws/fixtures';
import { seedDemo } from '../../seeds/demo';
import { SSR_SEEDS_ID, type SsrSeeds } from '../../src/shared/ssr';

const ROOT = path.resolve(__dirname, '../..');
const NASTY = 'Guia </script><script>alert(1)</script> & <!-- fim';

function seedsOf(html: string): SsrSeeds {
  const m = new RegExp(`<script id="${SSR_SEEDS_ID}" type="application/json">([\\s\\S]*?)</script>`).exec(html);
  if (!m) throw new Error('página sem as sementes');
  return JSON.parse(m[1]) as SsrSeeds;
}

const rootOf = (html: string) => /<div id="root">([\s\S]*)<\/div>\s*<script id=/.exec(html)?.[1] ?? '';

describe('server-rendered public pages', () => {
  let t: TestContext;
  let drawId: number;
  let productTitle: string;

  beforeAll(async () => {
    expect(fs.existsSync(path.join(ROOT, 'web/dist-ssr/entry-server.cjs'))).toBe(true);
    t = await createTestContext({ serveWeb: true });
    await seedDemo(t.services.db);
    drawId = (await t.api('GET', '/api/config')).body.current_draw_id;
    const draw = await t.services.db('draws').where({ id: drawId }).first();
    await t.services.db('infoproducts').where({ id: draw.infoproduct_id }).update({ title: NASTY });
    t.services.readCache.invalidateAll();
    productTitle = NASTY;
    const buyer = await createUser(t, { name: 'Beatriz Nogueira' });
    await sellDirectly(t, drawId, buyer.user.id, [3, 14, 15]);
  });
  afterAll(() => t?.close());

  it('renders / with the product cards in the HTML, CSS inline and the seeds escaped', async () => {
    const res = await fetch(`${t.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const html = await res.text();
    const root = rootOf(html);
    expect(root).toContain('E-books com sorteio aberto');
    expect(root).toContain('product-card');
    // The title is escaped text in the markup and \u003c in the JSON: it never closes the script.
    expect(root).toContain('Guia &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;!-- fim');
    expect(html.match(/<script>alert\(1\)/g)).toBeNull();
    const raw = /<script id="cv-ssr-data" type="application\/json">([\s\S]*?)<\/script>/.exec(html)![1];
    expect(raw).not.toContain('<');
    expect(raw).toContain('\\u003c/script>');
    const seeds = seedsOf(html);
    const products = (seeds.reads['home-products'] as { data: { items: Array<{ title: string }> } }).data.items;
    expect(products.map((p) => p.title)).toContain(productTitle);
    // No render-blocking stylesheet: the app's CSS is inline; the entry script is a module.
    expect(html).not.toMatch(/<link rel="stylesheet"/);
    expect(html).toContain('<style data-cv-css>');
    expect(html).toMatch(/<script type="module" crossorigin src="\/assets\/index-[^"]+\.js"><\/script>/);
  });

  it('sends the page compressed to browsers that accept it', async () => {
    // node:http, which (unlike fetch) hands over the bytes as sent.
    const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http.get(`${t.url}/numeros`, { headers: { 'accept-encoding': 'br, gzip' } }, resolve).on('error', reject),
    );
    const chunks: Buffer[] = [];
    for await (const c of res) chunks.push(c as Buffer);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers.vary).toMatch(/Accept-Encoding/i);
    const sent = Buffer.concat(chunks);
    const html = zlib.brotliDecompressSync(sent).toString('utf8');
    expect(rootOf(html)).toContain('Tabela de números');
    expect(sent.length).toBeLessThan(html.length / 3);
  });

  it('renders /numeros with the board, sold numbers marked, and its queries seeded', async () => {
    const res = await fetch(`${t.url}/numeros`);
    expect(res.status).toBe(200);
    const html = await res.text();
    const root = rootOf(html);
    expect(root).toContain('Tabela de números');
    const seeds = seedsOf(html);
    const keys = seeds.queries.map((q) => JSON.stringify(q.key));
    expect(keys).toEqual(expect.arrayContaining(['["config"]', `["draw",${drawId}]`, `["board",${drawId}]`]));
    const board = seeds.queries.find((q) => JSON.stringify(q.key) === `["board",${drawId}]`)!.data as {
      numbers: Array<{ n: number; status: string }>;
    };
    expect(board.numbers.filter((c) => c.status === 'sold').map((c) => c.n)).toEqual(expect.arrayContaining([3, 14, 15]));
    // The legal pages and the catalogue render too.
    for (const p of ['/infoprodutos', '/termos', '/privacidade', '/jogo-responsavel']) {
      const r = await fetch(`${t.url}${p}`);
      expect([p, r.status]).toEqual([p, 200]);
      expect(rootOf(await r.text())).toContain('<h1');
    }
  });

  it('renders a sale at once: rendered pages are kept only for the same reads', async () => {
    const soldOf = async () => {
      const seeds = seedsOf(await (await fetch(`${t.url}/numeros`)).text());
      const board = seeds.queries.find((q) => JSON.stringify(q.key) === `["board",${drawId}]`)!.data as {
        numbers: Array<{ n: number; status: string }>;
      };
      return board.numbers.filter((c) => c.status === 'sold').map((c) => c.n);
    };
    const before = await soldOf();
    expect(await soldOf()).toEqual(before);
    await sellDirectly(t, drawId, (await createUser(t, { name: 'Davi Souto' })).user.id, [77]);
    expect(await soldOf()).toEqual([...before, 77].sort((a, b) => a - b));
  });

  it('renders /resultado/{id} with the result, and a 404 page for a draw or result that does not exist', async () => {
    const draw = await makeDraw(t, { title: 'Sorteio do resultado' });
    await sellDirectly(t, draw.id, (await createUser(t, { name: 'Caio Prado' })).user.id, range(0, 100));
    const drawnAt = new Date(Date.now() - 2 * 86_400_000);
    await t.services
      .db('draws')
      .where({ id: draw.id })
      .update({ status: 'closed', closed_at: new Date(drawnAt.getTime() - 3600_000) });
    const numbers = [5, 12, 18, 23, 27, 31, 38, 44, 49, 52, 57, 61, 66, 70, 74, 79, 83, 88, 91, 97];
    const out = await t.services.results.record(
      { contest_number: 2951, numbers, drawn_at: drawnAt },
      { actorUserId: null, actor: 'cli', source: 'cli' },
    );
    expect(out.decided.map((d: { draw_id?: number; id?: number }) => d.draw_id ?? d.id)).toContain(draw.id);
    const ok = await fetch(`${t.url}/resultado/${draw.id}`);
    expect(ok.status).toBe(200);
    const root = rootOf(await ok.text());
    expect(root).toContain(`Resultado do Sorteio #${String(draw.id).padStart(3, '0')}`);
    expect(root).toContain('Número vencedor 97');
    expect(root).toContain('Contemplado: <strong>CP</strong>');
    expect(root).not.toMatch(/<script|hidden id="S:/);

    const missing = await fetch(`${t.url}/resultado/987654`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(rootOf(await missing.text())).toContain('Sorteio não encontrado');

    const notYet = await fetch(`${t.url}/resultado/${drawId}`);
    expect(notYet.status).toBe(404);
    expect(rootOf(await notYet.text())).toContain('Resultado ainda não disponível');

    const bad = await fetch(`${t.url}/resultado/abc`);
    expect(bad.status).toBe(404);
    expect(rootOf(await bad.text())).toContain('Sorteio não encontrado');
  });

  it('puts nothing private in the pages: no e-book file, no e-mail, no token', async () => {
    const files = (await t.services.db('infoproducts').select('file_url')).map((r) => String(r.file_url)).filter(Boolean);
    const emails = (await t.services.db('users').select('email')).map((r) => String(r.email));
    for (const p of ['/', '/numeros', '/infoprodutos']) {
      const html = await (await fetch(`${t.url}${p}`)).text();
      for (const secret of [...files, ...emails]) expect([p, html.includes(secret)]).toEqual([p, false]);
      expect(html).not.toMatch(/file_url|password|token_hash|ns_auth_token/);
    }
  });

  it('keeps the client-rendered shell for the other pages, and for every page with WEB_SSR=off', async () => {
    for (const p of ['/conta', '/admin', '/login', '/me/draw/1']) {
      const res = await fetch(`${t.url}${p}`);
      expect([p, res.status]).toEqual([p, 200]);
      const html = await res.text();
      expect(html).toContain('<div id="root"></div>');
      expect(html).not.toContain(SSR_SEEDS_ID);
    }
    const off = await createTestContext({ serveWeb: true, env: { WEB_SSR: 'off' } });
    try {
      const html = await (await fetch(`${off.url}/`)).text();
      expect(html).toContain('<div id="root"></div>');
      expect(html).toMatch(/<link rel="stylesheet"/);
      expect(html).not.toContain(SSR_SEEDS_ID);
    } finally {
      await off.close();
    }
  });
});
