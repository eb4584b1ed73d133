/**
 * What a visitor's browser downloads ("the site people download", docs/BENCHMARKS.md): the home
 * page's first visit stays within the JS budget, carries no antd and no account/admin code, and
 * loads the purchase dialogs and the phone menu only when first used; GET /api/me is asked once per
 * page load. Real app serving the built SPA (web/dist), demo catalogue, phone-sized Chromium.
 */
import type { Page } from 'playwright-core';
import { createUser, type TestContext } from '../helpers/context';
import { describeBrowser, settled, signInWithToken, useBrowser } from '../helpers/browser';
import {
  chunkOf,
  HOME_JS_BUDGET_BYTES,
  privateSourcesIn,
  readChunkMap,
  recordScripts,
  type ChunkInfo,
  type ScriptResponse,
} from '../helpers/bundle';
import { DEMO_PRODUCTS, seedDemo } from '../../seeds/demo';

describeBrowser('the home page download', () => {
  const session = useBrowser({
    setup: async (app) => {
      await seedDemo(app.services.db);
    },
  });
  let t: TestContext;
  let page: Page;
  let map: Record<string, ChunkInfo>;
  beforeAll(() => {
    map = readChunkMap();
  });
  beforeEach(() => ({ t, page } = session));

  const sourcesOf = (scripts: ScriptResponse[]) => new Set(scripts.flatMap((s) => Object.keys(chunkOf(map, s.file)?.sources ?? {})));

  it('first visit: within the JS budget, brotli, no antd, no account or admin code', async () => {
    const scripts = await recordScripts(page, async () => {
      await page.goto(`${t.url}/`);
      await page.getByRole('article').first().waitFor();
    });
    await expect(page.getByRole('article').count()).resolves.toBe(DEMO_PRODUCTS.length);

    expect(scripts.length).toBeGreaterThan(0);
    for (const s of scripts) {
      expect({ file: s.file, status: s.status }).toEqual({ file: s.file, status: 200 });
      // Every script of the build is in the chunk map (nothing served from elsewhere).
      expect({ file: s.file, mapped: !!chunkOf(map, s.file) }).toEqual({ file: s.file, mapped: true });
      // Anything worth compressing arrives in brotli (Chromium accepts br).
      if (s.raw >= 1024) expect({ file: s.file, encoding: s.encoding }).toEqual({ file: s.file, encoding: 'br' });
    }
    const total = scripts.reduce((a, s) => a + s.transferred, 0);
    expect(total).toBeLessThanOrEqual(HOME_JS_BUDGET_BYTES);

    expect(privateSourcesIn(map, scripts)).toEqual([]);
    const sources = sourcesOf(scripts);
    // The first screen is plain elements: antd, its dialogs and the purchase flow come later.
    expect([...sources].filter((s) => s === 'antd' || s.startsWith('@rc-component/') || s === 'qrcode')).toEqual([]);
    expect(sources.has('web/src/pages/purchase/usePurchase.tsx')).toBe(false);
    expect(sources.has('web/src/pages/home/HomePage.tsx')).toBe(true);
  }, 120_000);

  it('the buy button and the phone menu load their code when first used', async () => {
    await page.goto(`${t.url}/`);
    const card = page.getByRole('article', { name: DEMO_PRODUCTS[0].title });
    await card.waitFor();
    await page.waitForLoadState('networkidle');

    const buying = await recordScripts(page, async () => {
      await card.getByRole('button', { name: 'Comprar e-book' }).click();
      // Anonymous: the flow asks for a sign-in first (an antd dialog).
      await page.getByRole('dialog').filter({ hasText: 'Para comprar e-books é necessário estar autenticado.' }).waitFor();
    });
    // A click that lands while antd is still zooming the dialog in can be lost on a busy machine.
    await settled(page.getByRole('dialog').filter({ hasText: 'Para comprar e-books é necessário estar autenticado.' }));
    const flow = sourcesOf(buying);
    expect(flow.has('web/src/pages/purchase/usePurchase.tsx')).toBe(true);
    expect(flow.has('antd')).toBe(true);
    expect(privateSourcesIn(map, buying)).toEqual([]);

    // 'Fazer login' leads to /login (same layout: its top bar's menu is still not loaded).
    await page.getByRole('button', { name: 'Fazer login' }).click();
    await page.getByRole('heading', { level: 1, name: 'Entrar' }).waitFor();
    await page.waitForLoadState('networkidle');
    const menu = await recordScripts(page, async () => {
      await page.getByRole('button', { name: 'Abrir menu' }).click();
      await page.getByRole('menuitem', { name: /Entrar/ }).waitFor();
    });
    expect(sourcesOf(menu).has('web/src/layout/TopBarMenu.tsx')).toBe(true);
  }, 120_000);

  it('a signed-in visit asks GET /api/me once per page load', async () => {
    const customer = await createUser(t, { name: 'Joana Prado Lima' });
    await signInWithToken(session.context, customer.token);
    const profileCalls: string[] = [];
    page.on('request', (req) => {
      if (new URL(req.url()).pathname === '/api/me') profileCalls.push(req.method());
    });

    await page.goto(`${t.url}/`);
    await page
      .getByRole('link', { name: /Área do cliente/ })
      .first()
      .waitFor();
    await page.waitForLoadState('networkidle');
    expect(profileCalls).toEqual(['GET']);

    await page.reload();
    await page
      .getByRole('link', { name: /Área do cliente/ })
      .first()
      .waitFor();
    await page.waitForLoadState('networkidle');
    expect(profileCalls).toEqual(['GET', 'GET']);

    // The customer area reads the same session: still one call for its page load.
    await page.goto(`${t.url}/conta`);
    await page.getByRole('heading', { name: 'Olá, Joana!' }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(profileCalls).toEqual(['GET', 'GET', 'GET']);
  }, 120_000);
  // Issue 26: /numeros, where WhatsApp links send buyers, is plain elements outside the antd scope.
  it('/numeros sends at most 1.3× the home page’s JS (as sent, brotli), no antd', async () => {
    const home = await recordScripts(page, async () => {
      await page.goto(`${t.url}/`);
      await page.getByRole('article').first().waitFor();
    });
    // A fresh browser context: nothing cached from the home page's visit.
    const other = await session.browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'pt-BR' });
    try {
      const board = await other.newPage();
      const numeros = await recordScripts(board, async () => {
        await board.goto(`${t.url}/numeros`);
        await board.getByRole('grid', { name: /Tabela de números do sorteio/ }).waitFor();
      });
      const sum = (xs: ScriptResponse[]) => xs.reduce((a, s) => a + s.transferred, 0);
      const [h, n] = [sum(home), sum(numeros)];
      expect(h).toBeGreaterThan(0);
      expect(h).toBeLessThanOrEqual(HOME_JS_BUDGET_BYTES);
      expect(n / h).toBeLessThanOrEqual(1.3);
      const sources = sourcesOf(numeros);
      expect([...sources].filter((s) => s === 'antd' || s.startsWith('@rc-component/'))).toEqual([]);
      expect(sources.has('web/src/pages/numbers/NumbersPage.tsx')).toBe(true);
      expect(privateSourcesIn(map, numeros)).toEqual([]);
      console.log(`JS as sent: / ${(h / 1024).toFixed(1)} KB, /numeros ${(n / 1024).toFixed(1)} KB (${(n / h).toFixed(2)}×)`);
    } finally {
      await other.close();
    }
  }, 120_000);
});
