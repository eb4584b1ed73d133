/**
 * Issue 26, home on a phone: the first product card's prize, price and "Comprar e-book" are inside
 * the first screen on arrival at 360×740 and 390×844 (and at 1280 px); the explanation follows the
 * cards on a phone and sits in the hero on a wide screen, shown once. Axe on each, and screenshots
 * of the first screen and of the whole page in docs/screenshots/home.
 */
import path from 'node:path';
import fs from 'node:fs';
import type { Page } from 'playwright-core';
import type { TestContext } from '../helpers/context';
import { describeBrowser, useBrowser } from '../helpers/browser';
import { expectAccessible } from '../helpers/a11y';
import { pageAtRest, saveFullPageShot } from '../helpers/screenshots';
import { DEMO_PRODUCTS, seedDemo } from '../../seeds/demo';

const SHOTS = path.resolve(__dirname, '../../docs/screenshots/home');
const SCREENS = [
  { name: '360', viewport: { width: 360, height: 740 } },
  { name: '390', viewport: { width: 390, height: 844 } },
  { name: '1280', viewport: { width: 1280, height: 800 } },
] as const;

/** The bounding box of an element, as laid out (runs in the page). */
const box = (page: Page, selector: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((el: any) => {
      const r = el.getBoundingClientRect();
      return { top: Math.round(r.top), bottom: Math.round(r.bottom), left: Math.round(r.left), right: Math.round(r.right) };
    });

describeBrowser('home on a phone: the first e-book is sold on the first screen', () => {
  const session = useBrowser({ setup: (app) => seedDemo(app.services.db).then(() => undefined) });
  let t: TestContext;
  beforeEach(() => ({ t } = session));

  for (const s of SCREENS) {
    it(`${s.viewport.width}×${s.viewport.height}: the first card's prize, price and buy button inside the viewport on arrival`, async () => {
      const { page } = session;
      await page.setViewportSize(s.viewport);
      await page.goto(`${t.url}/`);
      const first = page.locator('.product-card:not(.product-card--skeleton)').first();
      await first.getByRole('button', { name: 'Comprar e-book' }).waitFor();
      await pageAtRest(page);
      expect(await page.evaluate(() => (globalThis as any).scrollY)).toBe(0);
      // The first card is the first demo e-book (the main series).
      await first.getByRole('heading', { name: DEMO_PRODUCTS[0].title, level: 3 }).waitFor();

      const card = '.product-card:not(.product-card--skeleton)';
      const prize = await box(page, `${card} .product-card-prize`);
      const price = await box(page, `${card} .product-card-price`);
      const buy = await box(page, `${card} .product-card-buy`);
      for (const [what, b] of [
        ['prêmio', prize],
        ['preço', price],
        ['Comprar e-book', buy],
      ] as const) {
        expect({ what, top: b.top >= 0, bottom: b.bottom <= s.viewport.height, right: b.right <= s.viewport.width }).toEqual({
          what,
          top: true,
          bottom: true,
          right: true,
        });
      }
      // The amounts read whole: the prize's amount on one line (no "R$ 500,0" + "0").
      const prizeAmountLines = await page
        .locator(`${card} .product-card-prize strong`)
        .first()
        .evaluate((el: any) => el.getClientRects().length === 1 && el.scrollWidth <= el.clientWidth + 1);
      expect(prizeAmountLines).toBe(true);
      // No sideways scroll.
      expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBe(s.viewport.width);

      // The explanation is shown once: after the cards on a phone, in the hero on a wide screen.
      const leads = page.locator('.hero-lead');
      const visible = await leads.evaluateAll((els: any[]) => els.map((e) => !!(e.offsetWidth || e.offsetHeight)));
      expect(visible).toEqual(s.viewport.width >= 768 ? [true, false] : [false, true]);
      await page.getByRole('button', { name: 'Como funciona' }).waitFor();
      expect(await page.getByRole('button', { name: 'Como funciona' }).count()).toBe(1);
      expect(await page.getByRole('heading', { level: 1 }).count()).toBe(1);

      await expectAccessible(page, `home ${s.name} (primeira tela)`);
      fs.mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, `home-first-screen-${s.name}.png`), animations: 'disabled' });
      await saveFullPageShot(page, SHOTS, `home-full-${s.name}`);
    }, 120_000);
  }
});
