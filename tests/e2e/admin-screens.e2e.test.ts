/**
 * Screenshots of every admin console page, desktop (1280) and phone (390), with realistic data:
 * the demo catalogue, customers with numbers in the main series, a held raffle decided by a
 * Lotomania result (a winner with a prize), autopay runs (approved and declined) in the current
 * draw, a late-approved payment flagged for review, and the audit trail those left. Saved as
 * docs/screenshots/admin/console-<page>-<desktop|phone>.png for a person to look at, plus the new
 * wiring: the draws table with 'Compras automáticas' open, and the phone's menu drawer with
 * 'Filas (operações)'. Each page is checked for its heading and for not scrolling sideways on a phone.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import type { TestContext } from '../helpers/context';
import { describeBrowser, PHONE_VIEWPORT, settled, signInWithToken, useBrowser } from '../helpers/browser';
import { eventually } from '../helpers/eventually';
import { seedDemo } from '../../seeds/demo';
import { seedConsole } from './console-seed';
import { pageAtRest, saveFullPageShot } from '../helpers/screenshots';
import { expectAccessible } from '../helpers/a11y';

const SHOTS = path.resolve(__dirname, '../../docs/screenshots/admin');
const DESKTOP = { width: 1280, height: 900 };
const pad3 = (n: number) => String(n).padStart(3, '0');

const PAGES: Array<{ path: string; name: string; heading: string }> = [
  { path: '/admin', name: 'dashboard', heading: 'Painel administrativo' },
  { path: '/admin/sorteios', name: 'held-raffles', heading: 'Sorteios realizados' },
  { path: '/admin/clientes', name: 'active-clients', heading: 'Clientes com saldo ativo' },
  { path: '/admin/vencedores', name: 'winners', heading: 'Vencedores' },
  { path: '/admin/AdminClientesUser', name: 'admin-users', heading: 'Cadastro de Clientes' },
  { path: '/admin/sorteiosAtivos', name: 'open-buyers', heading: 'Sorteio Ativo — Compradores' },
  { path: '/admin/infoproducts', name: 'infoproducts', heading: 'Cadastro de Infoprodutos' },
  { path: '/admin/pagamentos', name: 'payments', heading: 'Pagamentos para revisar' },
  { path: '/admin/auditoria', name: 'audit', heading: 'Auditoria' },
];

describeBrowser('admin console screenshots (every page, desktop and phone)', () => {
  const session = useBrowser({ setup: (app) => seedDemo(app.services.db).then(() => undefined) });
  let t: TestContext;
  let context: BrowserContext;
  let page: Page;
  beforeEach(() => ({ t, context, page } = session));

  const shot = (name: string) => saveFullPageShot(page, SHOTS, name);

  it('shoots every page on desktop and phone, the autopay detail and the menu drawer', async () => {
    const { admin, next } = await seedConsole(t);
    await signInWithToken(context, admin.token);

    for (const [label, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE_VIEWPORT],
    ] as const) {
      await page.setViewportSize(viewport);
      for (const p of PAGES) {
        await page.goto(`${t.url}${p.path}`);
        await page.getByRole('heading', { name: p.heading, exact: true }).first().waitFor();
        // Loaded: no skeleton left.
        await eventually(async () => (await page.locator('.ant-skeleton').count()) === 0 || null, `${p.path} to load`);
        await pageAtRest(page);
        if (label === 'phone') {
          const width = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);
          expect({ page: p.path, width }).toEqual({ page: p.path, width: PHONE_VIEWPORT.width });
        }
        await shot(`console-${p.name}-${label}`); // axe runs on it first (saveFullPageShot)
      }

      // The dashboard's draws table with the current draw's 'Compras automáticas' open.
      await page.goto(`${t.url}/admin`);
      const row = page.locator(`.draws-card [data-draw-id="${next}"]`);
      await row.getByRole('button', { name: `Compras automáticas do sorteio #${pad3(next)}` }).click();
      const detail = page.locator(`#draw-autopay-${next}`);
      await detail.getByText('Patrícia Nogueira').waitFor();
      await detail.getByText('Recusado', { exact: true }).waitFor();
      await expectAccessible(page, `console: compras automáticas do sorteio (${label})`);
      await detail.scrollIntoViewIfNeeded();
      await pageAtRest(page);
      fs.mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, `console-draw-autopay-${label}.png`), animations: 'disabled' });
    }

    // The phone's menu drawer, with 'Filas (operações)' under the pages.
    await page.goto(`${t.url}/admin`);
    await page.getByRole('button', { name: 'Menu do painel' }).click();
    const drawer = await settled(page.locator('.admin-console-drawer'));
    await drawer.getByRole('button', { name: 'Filas (operações)' }).waitFor();
    await pageAtRest(page);
    await page.screenshot({ path: path.join(SHOTS, 'console-menu-drawer-phone.png'), animations: 'disabled' });
  }, 240_000);
});
