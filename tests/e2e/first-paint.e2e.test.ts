/**
 * The public pages paint before their JavaScript (src/ssr, web/src/entry-server.tsx): with
 * JavaScript off, / shows the product cards (title, price, prize, availability), /numeros the
 * board with the sold numbers marked and /resultado/{id} the result; with JavaScript on, the
 * browser hydrates the same HTML with no hydration error and the page works (axe at 360, 390 and
 * 1280 px). Screenshots of the pages as painted without JavaScript: docs/screenshots/first-paint/.
 */
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { createUser, type TestContext } from '../helpers/context';
import { describeBrowser, useBrowser } from '../helpers/browser';
import { expectAccessible } from '../helpers/a11y';
import { pageAtRest } from '../helpers/screenshots';
import { makeDraw, range, sellDirectly } from '../draws/fixtures';
import { seedDemo } from '../../seeds/demo';

const SHOTS = path.resolve(__dirname, '../../docs/screenshots/first-paint');
const WIDTHS = [360, 390, 1280] as const;
const SOLD = [3, 14, 15, 92];
const viewport = (width: number) => ({ width, height: width > 800 ? 900 : width === 360 ? 740 : 844 });

describeBrowser('public pages painted before their JavaScript, then hydrated', () => {
  let drawId = 0;
  let resultDrawId = 0;
  const session = useBrowser({
    setup: async (t) => {
      await seedDemo(t.services.db);
      drawId = (await t.api('GET', '/api/config')).body.current_draw_id;
      const buyer = await createUser(t, { name: 'Beatriz Nogueira' });
      await sellDirectly(t, drawId, buyer.user.id, SOLD);
      // A decided draw: every number sold, the last of the 20 drawn wins.
      const draw = await makeDraw(t, { title: 'Sorteio já decidido' });
      await sellDirectly(t, draw.id, (await createUser(t, { name: 'Caio Prado' })).user.id, range(0, 100));
      const drawnAt = new Date(Date.now() - 2 * 86_400_000);
      await t.services
        .db('draws')
        .where({ id: draw.id })
        .update({ status: 'closed', closed_at: new Date(drawnAt.getTime() - 3600_000) });
      const numbers = [5, 12, 18, 23, 27, 31, 38, 44, 49, 52, 57, 61, 66, 70, 74, 79, 83, 88, 91, 97];
      await t.services.results.record(
        { contest_number: 2951, numbers, drawn_at: drawnAt },
        { actorUserId: null, actor: 'cli', source: 'cli' },
      );
      resultDrawId = draw.id;
    },
  });
  let t: TestContext;
  let browser: Browser;
  beforeEach(() => ({ t, browser } = session));

  async function withoutJs<T>(width: number, fn: (page: Page) => Promise<T>): Promise<T> {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: viewport(width), locale: 'pt-BR' });
    try {
      return await fn(await context.newPage());
    } finally {
      await context.close();
    }
  }

  const shot = async (page: Page, name: string) => {
    await pageAtRest(page);
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  };

  it('with JavaScript off: / shows the cards, /numeros the board with sold numbers, /resultado/{id} the result', async () => {
    for (const width of WIDTHS) {
      await withoutJs(width, async (page) => {
        const home = await page.goto(`${t.url}/`);
        expect(home!.status()).toBe(200);
        const card = page.locator('article.product-card').first();
        await card.waitFor();
        expect(await page.locator('article.product-card').count()).toBeGreaterThan(0);
        await expect(card.locator('h3').textContent()).resolves.toMatch(/\S/);
        const text = (await card.textContent()) ?? '';
        // Price and prize in reais, and how many numbers are left.
        expect(text.match(/R\$\s?\d/g)?.length ?? 0).toBeGreaterThanOrEqual(2);
        expect(text).toMatch(/Prêmio/i);
        expect(text).toMatch(/\d+\s+de\s+\d+|disponíve/i);
        await shot(page, `home-${width}`);

        const numbers = await page.goto(`${t.url}/numeros`);
        expect(numbers!.status()).toBe(200);
        await page.getByRole('heading', { name: 'Tabela de números' }).waitFor();
        for (const n of SOLD) {
          const cell = page.getByRole('gridcell', { name: new RegExp(`^${String(n).padStart(2, '0')}:`) }).first();
          await expect(cell.getAttribute('class')).resolves.toMatch(/number-cell--unavailable/);
        }
        const free = page.getByRole('gridcell', { name: /^00:/ }).first();
        await expect(free.getAttribute('class')).resolves.toMatch(/number-cell--available/);
        await shot(page, `numbers-${width}`);

        const result = await page.goto(`${t.url}/resultado/${resultDrawId}`);
        expect(result!.status()).toBe(200);
        await page.getByRole('heading', { name: `Resultado do Sorteio #${String(resultDrawId).padStart(3, '0')}` }).waitFor();
        await page.getByLabel('Número vencedor 97').waitFor();
        expect(await page.locator('.result-balls li').count()).toBe(20);
        await shot(page, `result-${width}`);

        const missing = await page.goto(`${t.url}/resultado/987654`);
        expect(missing!.status()).toBe(404);
        await page.getByRole('heading', { name: 'Sorteio não encontrado' }).waitFor();
      });
    }
  });

  /** Whether React has taken over the element (hydrated it): its fiber is attached to the node. */
  const hydrated = (page: Page, selector: string) =>
    page.waitForFunction(
      (sel) => {
        const el = (globalThis as any).document.querySelector(sel);
        return !!el && Object.keys(el).some((k) => k.startsWith('__reactFiber'));
      },
      selector,
      { timeout: 30_000 },
    );

  it.each(WIDTHS)(
    'with JavaScript on at %i px: each page hydrates with no hydration error, is accessible and works',
    async (width) => {
      const pages: Array<{ path: string; hydratedAt: string }> = [
        { path: '/', hydratedAt: 'article.product-card .product-card-buy' },
        { path: '/infoprodutos', hydratedAt: '#conteudo h1' },
        { path: '/numeros', hydratedAt: '#numbers-board-title' },
        { path: `/resultado/${resultDrawId}`, hydratedAt: '.result-page h1' },
        { path: '/termos', hydratedAt: '#conteudo h1' },
        { path: '/privacidade', hydratedAt: '#conteudo h1' },
        { path: '/jogo-responsavel', hydratedAt: '#conteudo h1' },
      ];
      {
        const context = await browser.newContext({ viewport: viewport(width), locale: 'pt-BR' });
        try {
          for (const p of pages) {
            const page = await context.newPage();
            const errors: string[] = [];
            page.on('console', (m) => {
              if (m.type() === 'error') errors.push(`console: ${m.text()}`);
            });
            page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
            const res = await page.goto(`${t.url}${p.path}`);
            expect([p.path, res!.status()]).toEqual([p.path, 200]);
            await hydrated(page, p.hydratedAt);
            // React reports a hydration mismatch as a recoverable error (#418, #423, #425…) on the console.
            expect([p.path, width, errors]).toEqual([p.path, width, []]);
            await expectAccessible(page, `ssr ${p.path} ${width}px`);
            await page.close();
          }
          // Hydrated, the board answers clicks: a free number becomes selected.
          const page = await context.newPage();
          await page.goto(`${t.url}/numeros`);
          await hydrated(page, '#numbers-board-title');
          const cell = page.getByRole('gridcell', { name: /^00:/ }).first();
          await cell.click();
          await page.getByRole('gridcell', { name: '00: selecionado' }).first().waitFor();
          await page.close();
        } finally {
          await context.close();
        }
      }
    },
    180_000,
  );
});
