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
import { createUser, type TestContext } from '../helpers/context';
import { describeBrowser, PHONE_VIEWPORT, settled, signInWithToken, useBrowser } from '../helpers/browser';
import { eventually } from '../helpers/eventually';
import { readAppConfig } from '../../src/platform/app-config';
import { seedDemo } from '../../seeds/demo';
import { sellDirectly } from '../draws/fixtures';
import { buyEbooks, makeProductWithDraw } from '../payments/fixtures';
import { CARDS, autopayUser, openNextDraw } from '../autopay/fixtures';
import { saveFullPageShot } from '../helpers/screenshots';

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

  const shot = (name: string) => saveFullPageShot(page, SHOTS, name, 400);

  /** Realistic data for every page; returns the main series' current draw. */
  async function seed() {
    const admin = await createUser(t, { admin: true, name: 'Ana Beatriz Admin', email: 'ana.beatriz@cotaverde.com.br' });
    const names = ['Carlos Eduardo Pereira', 'Fernanda Gonçalves', 'João Victor Araújo', 'Luíza Mendonça Sá', 'Márcio Conceição'];
    const people = [];
    for (const name of names) people.push(await createUser(t, { name, email: `${name.split(' ')[0].normalize('NFD').replace(/\p{Diacritic}/gu, '').toLowerCase()}.${people.length + 1}@exemplo.com.br` }));
    const cfg = await readAppConfig(t.services.db);
    const first = await t.services.db('draws').where({ infoproduct_id: cfg.main_infoproduct_id, status: 'open' }).first();

    // The first main draw: numbers sold, closed, then decided by a Lotomania contest.
    await sellDirectly(t, first.id, people[0].user.id, [7, 42, 63]);
    await sellDirectly(t, first.id, people[1].user.id, [15, 88]);
    await sellDirectly(t, first.id, people[2].user.id, [3]);
    // Captive numbers: they are held and charged when the next main draw opens.
    const auto1 = await autopayUser(t, [5, 21, 33]);
    const auto2 = await autopayUser(t, [9, 50], CARDS.decline);
    await t.services.db('users').where({ id: auto1.user.id }).update({ name: 'Patrícia Nogueira', email: 'patricia.nogueira@exemplo.com.br' });
    await t.services.db('users').where({ id: auto2.user.id }).update({ name: 'Ricardo Albuquerque', email: 'ricardo.albuquerque@exemplo.com.br' });
    const next = await openNextDraw(t, first.id);
    await t.services.autopay.runDraw(next);
    const numbers = [12, 77, 40, 1, 95, 58, 36, 81, 24, 69, 47, 90, 18, 30, 66, 2, 53, 74, 88, 42];
    // Closed two days ago, decided by the contest held the day after.
    await t.services.db('draws').where({ id: first.id }).update({ opened_at: new Date(Date.now() - 9 * 86_400_000), closed_at: new Date(Date.now() - 2 * 86_400_000) });
    await t.services.results.record({ contest_number: 2731, numbers, drawn_at: new Date(Date.now() - 86_400_000) }, { actorUserId: null, actor: 'cli', source: 'cli' });
    const decided = await t.services.db('draws').where({ id: first.id }).first();
    if (decided.winner_user_id) {
      await t.api('PATCH', `/api/admin/winners/${first.id}`, { token: admin.token, body: { product_name: 'Smartphone Galaxy A15 128 GB', product_link: 'https://exemplo.com.br/premios/galaxy-a15' } });
    }

    // The current draw: customers with numbers.
    await sellDirectly(t, next, people[0].user.id, [11, 27]);
    await sellDirectly(t, next, people[3].user.id, [44, 45, 46, 99]);
    await sellDirectly(t, next, people[4].user.id, [0]);

    // A late-approved PIX (flagged) and a balance adjustment, through the services and the API.
    const { product, draw: other } = await makeProductWithDraw(t, { price_cents: 1490 });
    await t.services.db('infoproducts').where({ id: product.id }).update({ title: 'Planilha de Gastos Domésticos', sku: 'EBOOK-PLANILHA-GASTOS' });
    await t.services.db('draws').where({ id: other.id }).update({ title: 'Planilha de Gastos Domésticos' });
    const late = await buyEbooks(t, people[1].token, product.id, 1, 1490);
    await t.services.db('payments').where({ id: late.paymentId }).update({ expires_at: t.services.db.raw(`now() - interval '1 second'`) });
    await t.services.payments.poll(late.paymentId);
    await t.services.payments.approve(late.paymentId, { via: 'cli' });
    await t.api('POST', '/api/admin/dashboard/ticket-price', { token: admin.token, body: { price_cents: 1000 } });
    return { admin, next };
  }

  it('shoots every page on desktop and phone, the autopay detail and the menu drawer', async () => {
    const { admin, next } = await seed();
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
        await page.waitForTimeout(300);
        if (label === 'phone') {
          const width = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);
          expect({ page: p.path, width }).toEqual({ page: p.path, width: PHONE_VIEWPORT.width });
        }
        await shot(`console-${p.name}-${label}`);
      }

      // The dashboard's draws table with the current draw's 'Compras automáticas' open.
      await page.goto(`${t.url}/admin`);
      const row = page.locator(`.draws-card [data-draw-id="${next}"]`);
      await row.getByRole('button', { name: `Compras automáticas do sorteio #${pad3(next)}` }).click();
      const detail = page.locator(`#draw-autopay-${next}`);
      await detail.getByText('Patrícia Nogueira').waitFor();
      await detail.getByText('Recusado', { exact: true }).waitFor();
      await detail.scrollIntoViewIfNeeded();
      await page.waitForTimeout(300);
      fs.mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, `console-draw-autopay-${label}.png`), animations: 'disabled' });
    }

    // The phone's menu drawer, with 'Filas (operações)' under the pages.
    await page.goto(`${t.url}/admin`);
    await page.getByRole('button', { name: 'Menu do painel' }).click();
    const drawer = await settled(page.locator('.admin-console-drawer'));
    await drawer.getByRole('button', { name: 'Filas (operações)' }).waitFor();
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(SHOTS, 'console-menu-drawer-phone.png'), animations: 'disabled' });
  }, 240_000);
});
