/**
 * Browser test of the admin dashboard (account spec §2 "Admin dashboard"): an admin
 * signs in → /admin shows the current draw's sold and remaining → changes the ticket price →
 * creates a draw with 'Novo' → toggles its status chip → 'NOVO SORTEIO' after the confirmation
 * that says how many numbers are sold → the new draw is listed. Then the audit log shows those
 * changes with their before/after. Phone-sized screen (and desktop for the screenshots), real API
 * serving the built SPA (web/dist), demo catalogue. Screenshots of the dashboard and the audit log,
 * desktop and phone, go to docs/screenshots/admin/ (committed, looked at by a person).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { createUser, type TestContext } from '../helpers/context';
import { describeBrowser, settled, signInWithToken, useBrowser } from '../helpers/browser';
import { sellDirectly } from '../draws/fixtures';
import { eventually } from '../helpers/eventually';
import { readAppConfig } from '../../src/platform/app-config';
import { seedDemo } from '../../seeds/demo';
import { pageAtRest } from '../helpers/screenshots';

const SHOTS = path.resolve(__dirname, '../../docs/screenshots/admin');
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const pad3 = (n: number) => String(n).padStart(3, '0');

// Each page state and dialog also runs axe (tests/helpers/a11y.ts): slower than jest's default 60 s on a busy machine.
jest.setTimeout(180_000);
describeBrowser('admin dashboard in the browser', () => {
  const session = useBrowser({ setup: (app) => seedDemo(app.services.db).then(() => undefined) });
  let t: TestContext;
  let context: BrowserContext;
  let page: Page;
  beforeEach(() => ({ t, context, page } = session));

  const dialog = (name: string) => page.getByRole('dialog').filter({ hasText: name });
  /** A draw's row of the draws table (a card on phones). */
  const drawRow = (id: number) => page.locator(`.draws-card [data-draw-id="${id}"]`);

  async function shot(name: string, fullPage = true) {
    fs.mkdirSync(SHOTS, { recursive: true });
    // From the top: a full-page shot of a scrolled page paints the sticky top bar mid-page.
    if (fullPage) {
      await page.evaluate(() => (globalThis as any).scrollTo(0, 0));
      await pageAtRest(page);
    }
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage, animations: 'disabled' });
  }

  /** Nothing on the phone screen is wider than the screen (the page never scrolls sideways). */
  async function expectNoSidewaysScroll() {
    // The charts follow the viewport through a ResizeObserver: wait for them to have re-laid out.
    const width = () => page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);
    await eventually(async () => (await width()) <= PHONE.width, 'the page to fit the phone screen (no sideways scroll)', 20_000).catch(
      () => undefined,
    );
    await expect(width()).resolves.toBeLessThanOrEqual(PHONE.width);
  }

  async function mainDraw() {
    const cfg = await readAppConfig(t.services.db);
    return t.services.db('draws').where({ infoproduct_id: cfg.main_infoproduct_id, status: 'open' }).first();
  }

  it('shows the current draw, saves the price, creates and toggles a draw, opens the next draw of the series, and audits it all', async () => {
    const { token } = await createUser(t, { admin: true, name: 'Admin Teste' });
    const buyer = await createUser(t, { name: 'Bruna Compradora' });
    const current = await mainDraw();
    await sellDirectly(t, current.id, buyer.user.id, [3, 14, 15]);
    t.services.readCache.invalidateAll();
    await signInWithToken(context, token);

    // --- /admin: the current draw with its sold and remaining numbers ---
    await page.goto(`${t.url}/admin`);
    const card = page.locator('.current-draw-card');
    await card.getByText(`#${pad3(current.id)}`, { exact: true }).waitFor();
    const stat = (title: string) => card.locator('.ant-statistic').filter({ hasText: title }).locator('.ant-statistic-content');
    await expect(stat('Vendidos').innerText()).resolves.toBe('3');
    await expect(stat('Restantes').innerText()).resolves.toMatch(
      new RegExp(`^${current.total_numbers - 3}\\s*/\\s*${current.total_numbers}$`),
    );
    await page.getByRole('heading', { name: 'Painel administrativo', level: 1 }).waitFor();

    // --- ticket price ---
    const price = page.getByLabel('Preço do bilhete (centavos)');
    await price.fill('1500');
    await page.getByLabel('Frase promocional (banner)').fill('Concorra com o Guia da Lotomania!');
    await page.getByRole('button', { name: 'ATUALIZAR', exact: true }).click();
    await page.getByText('Configurações salvas com sucesso.').waitFor();
    expect((await t.services.db('draws').where({ id: current.id }).first()).ticket_price_cents_override).toBe(1500);
    const cfg = await readAppConfig(t.services.db);
    // RULES N9: the current draw's price changed; the config's fallback price did not.
    expect(cfg).toMatchObject({ ticket_price_cents: 100, banner_title: 'Concorra com o Guia da Lotomania!' });
    expect((await t.api('GET', '/api/config')).body.ticket_price_cents).toBe(1500);
    await stat('Preço do número')
      .getByText(/R\$\s?15,00/)
      .waitFor();

    // --- 'Novo': a draw without e-book ---
    await page.locator('.draws-card').getByRole('button', { name: 'Novo' }).click();
    const form = await settled(dialog('Novo sorteio'));
    await form.getByLabel('Título').fill('Rodada de teste do painel');
    await form.getByLabel('Quantidade de números').fill('50');
    await form.getByLabel('Limite por usuário').fill('0');
    await form.getByText('0 = sem limite').waitFor();
    await form.getByText('Se selecionar um infoproduto, o preço virá dele.').waitFor();
    await shot('draw-dialog-phone', false);
    await form.getByRole('button', { name: 'Salvar' }).click();
    await page.getByText(/Sorteio #\d{3} criado\./).waitFor();
    const created = await t.services.db('draws').where({ title: 'Rodada de teste do painel' }).first();
    expect(created).toMatchObject({ status: 'open', total_numbers: 50, max_per_user: 0, infoproduct_id: null });
    const row = drawRow(created.id);
    await row.getByText('Rodada de teste do painel').waitFor();
    await row.getByText('sem limite').waitFor();

    // --- the status chip: open → closed, after a confirmation even with no sales ---
    await row.getByRole('button', { name: `Status ABERTO do sorteio #${pad3(created.id)}: clique para fechar` }).click();
    const closing = await settled(dialog(`Fechar o sorteio #${pad3(created.id)}?`));
    await closing.getByText('nenhum número vendido').waitFor();
    expect((await t.services.db('draws').where({ id: created.id }).first()).status).toBe('open');
    await closing.getByRole('button', { name: 'Fechar sorteio' }).click();
    await row.getByRole('button', { name: `Status FECHADO do sorteio #${pad3(created.id)}: clique para abrir` }).waitFor();
    expect((await t.services.db('draws').where({ id: created.id }).first()).status).toBe('closed');

    await expectNoSidewaysScroll();
    await page.setViewportSize(DESKTOP);
    await pageAtRest(page);
    await shot('dashboard-desktop');
    await page.setViewportSize(PHONE);
    await pageAtRest(page);
    await shot('dashboard-phone');

    // --- NOVO SORTEIO: the confirmation says how many numbers are sold ---
    await page.getByRole('button', { name: 'NOVO SORTEIO' }).click();
    const confirm = await settled(dialog('Abrir um novo sorteio?'));
    await confirm.getByText(`O sorteio #${pad3(current.id)} tem 3 números vendidos`).waitFor();
    await shot('new-series-confirm-phone', false);
    await confirm.getByRole('button', { name: 'NOVO SORTEIO' }).click();
    const successor = await eventually(async () => {
      const d = await mainDraw();
      return d && d.id !== current.id ? d : null;
    }, 'the successor draw of the main series');
    await page.getByText(`Sorteio #${pad3(current.id)} fechado. Sorteio #${pad3(successor.id)} aberto.`).waitFor();
    expect((await t.services.db('draws').where({ id: current.id }).first()).status).toBe('closed');
    await card.getByText(`#${pad3(successor.id)}`, { exact: true }).waitFor();
    await expect(stat('Vendidos').innerText()).resolves.toBe('0');
    // The new draw is listed, open, in the draws table; the old one is closed there.
    const newRow = drawRow(successor.id);
    await newRow.getByRole('button', { name: `Status ABERTO do sorteio #${pad3(successor.id)}: clique para fechar` }).waitFor();
    await drawRow(current.id)
      .getByRole('button', { name: `Status FECHADO do sorteio #${pad3(current.id)}: clique para abrir` })
      .waitFor();

    // --- 'Excluir' of a draw with sales: the 409 reason is shown ---
    await drawRow(current.id)
      .getByRole('button', { name: `Excluir sorteio #${pad3(current.id)}` })
      .click();
    await (await settled(dialog('Deseja realmente excluir este sorteio?'))).getByRole('button', { name: 'Excluir' }).click();
    await page
      .getByText('Não foi possível excluir. Este sorteio já tem vendas ou reservas e não pode ser excluído. Feche-o em vez de excluir.')
      .waitFor();
    expect(await t.services.db('draws').where({ id: current.id }).first()).toBeTruthy();

    // --- the audit log: newest first, filtered by the draw, before/after readable ---
    // Through the phone menu (a drawer): every admin page is listed there.
    await page.getByRole('button', { name: 'Menu do painel' }).click();
    const drawer = await settled(page.locator('.admin-console-drawer'));
    const links = drawer.getByRole('navigation', { name: 'Páginas do painel' }).getByRole('link');
    await expect(links.allInnerTexts()).resolves.toEqual([
      'Painel',
      'Sorteios realizados',
      'Clientes com saldo',
      'Vencedores',
      'Cadastro de Clientes',
      'Compradores do sorteio ativo',
      'Cadastro de Infoprodutos',
      'Pagamentos',
      'Auditoria',
    ]);
    await shot('menu-drawer-phone', false);
    await drawer.getByRole('link', { name: 'Auditoria' }).click();
    await page.waitForURL(`${t.url}/admin/auditoria`);
    await drawer.waitFor({ state: 'hidden' });
    await page.getByRole('heading', { name: 'Auditoria', level: 1 }).waitFor();
    const first = page.locator('[data-audit-id]').first();
    await first.getByText('NOVO SORTEIO (série principal)').waitFor();
    await page.getByLabel('Entidade').fill('draw');
    await page.getByLabel('ID do registro').fill(String(created.id));
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.waitForURL(/entity=draw&entity_id=\d+/);
    // Phones list one card per entry (data-audit-id), newest first.
    const rows = page.locator('[data-audit-id]');
    await page.getByText(`Registros de Sorteio #${created.id}`).waitFor();
    // The filtered page replaces the whole list: the draw's creation and its status change only.
    await eventually(async () => (await rows.count()) === 2, 'the filtered audit list');
    await expect(rows.first().innerText()).resolves.toContain('Status do sorteio alterado');
    await expect(rows.nth(1).innerText()).resolves.toContain('Sorteio criado');
    await rows.first().getByRole('button', { name: 'Ver antes e depois' }).click();
    const diff = rows.first().locator('.audit-diff');
    const statusRow = diff.locator('tr').filter({ has: page.locator('th', { hasText: /^status/ }) });
    await expect(statusRow.innerText()).resolves.toMatch(/open\s+closed/);
    await expect(statusRow.getByText('alterado').isVisible()).resolves.toBe(true);
    // Timestamps in the diff read as pt-BR dates, not ISO text.
    await expect(
      diff
        .locator('tr')
        .filter({ has: page.locator('th', { hasText: /^closed_at/ }) })
        .innerText(),
    ).resolves.toMatch(/\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2}/);
    await expectNoSidewaysScroll();

    await shot('audit-phone');
    await page.setViewportSize(DESKTOP);
    await page.locator('.ant-table-tbody tr.ant-table-row').first().waitFor();
    await page.locator('.ant-table-tbody tr.ant-table-row').first().locator('.ant-table-row-expand-icon').click();
    await page.locator('.ant-table-expanded-row .audit-diff').waitFor();
    await page.evaluate(() => (globalThis as any).scrollTo(0, 0));
    await shot('audit-desktop', false);
  });

  it('without an open main-series draw: shows the newest open draw, and NOVO SORTEIO opens the main series again', async () => {
    const { token } = await createUser(t, { admin: true, name: 'Admin Pausa' });
    const paused = await mainDraw();
    await t.services.db('draws').where({ id: paused.id }).update({ status: 'closed', closed_at: new Date() });
    t.services.readCache.invalidateAll();
    const newest = await t.services.db('draws').where({ status: 'open' }).orderBy('id', 'desc').first();
    await signInWithToken(context, token);

    await page.goto(`${t.url}/admin`);
    const card = page.locator('.current-draw-card');
    await card.getByText(`#${pad3(newest.id)}`, { exact: true }).waitFor();
    await card.getByText('A série principal não tem sorteio aberto: este é o sorteio aberto mais recente, de outro e-book.').waitFor();
    await shot('dashboard-fallback-phone', false);

    await card.getByRole('button', { name: 'NOVO SORTEIO' }).click();
    const confirm = await settled(dialog('Abrir um sorteio da série principal?'));
    await confirm.getByText(`O sorteio #${pad3(newest.id)}, de outro e-book, continua como está.`).waitFor();
    await confirm.getByRole('button', { name: 'NOVO SORTEIO' }).click();
    const opened = await eventually(() => mainDraw(), 'an open draw of the main series');
    await page.getByText(`Sorteio #${pad3(opened.id)} aberto.`).waitFor();
    await card.getByText(`#${pad3(opened.id)}`, { exact: true }).waitFor();
    expect((await t.services.db('draws').where({ id: newest.id }).first()).status).toBe('open');
    expect(opened.predecessor_id).toBeNull();
  });

  it('shows the business at a glance: sales and revenue per day, numbers per draw, sell-out time, PIX conversion (charts drawn, text summaries)', async () => {
    const { token } = await createUser(t, { admin: true, name: 'Admin Gráficos' });
    const buyer = await createUser(t, { name: 'Paula Gomes' });
    const db = t.services.db;
    // A history: PIX charges over the last days (two of three paid), and a sold-out board of 10.
    const daysAgo = (d: number, h = 12) => new Date(Date.now() - d * 86_400_000 - h * 3_600_000);
    for (let d = 1; d <= 20; d += 1) {
      await db('payments').insert({
        user_id: buyer.user.id,
        kind: 'reservation',
        method: 'pix',
        provider: 'sandbox',
        status: d % 3 ? 'approved' : 'expired',
        amount_cents: 1000 * (1 + (d % 4)),
        created_at: daysAgo(d),
        paid_at: d % 3 ? daysAgo(d, 11) : null,
      });
    }
    const board = await t.services.db.transaction((trx) =>
      import('../../src/draws/queries').then((q) =>
        q.insertDrawWithNumbers(trx, {
          infoproduct_id: null,
          title: 'Sorteio relâmpago',
          total_numbers: 10,
          prize_cents: 10_000,
          ticket_price_cents_override: null,
          max_per_user: 0,
          status: 'closed',
        }),
      ),
    );
    await db('draws')
      .where({ id: board.id })
      .update({ opened_at: daysAgo(6), closed_at: daysAgo(4) });
    await sellDirectly(t, board.id, buyer.user.id, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    await db('number_sales')
      .where({ draw_id: board.id })
      .update({ created_at: daysAgo(5) });

    await page.setViewportSize(DESKTOP);
    await signInWithToken(context, token);
    await page.goto(`${t.url}/admin`);
    const card = page.locator('.figures-card');
    await card.getByText('Números do negócio').waitFor();
    await eventually(
      async () => (await card.locator('figure.figures-chart .recharts-wrapper > svg.recharts-surface').count()) === 4,
      'the four charts drawn',
    );
    await card.getByText('Conversão PIX', { exact: true }).waitFor();
    // Two of every three charges paid (14 of 20 days with a paid charge).
    await card.getByText(/Conversão PIX: 14 pagos de 20 gerados \(70%\)/).waitFor();
    await expect(card.locator('#figures-sellout-title + p').innerText()).resolves.toMatch(new RegExp(`Sorteio #${pad3(board.id)}: 24 h`));
    await expect(card.locator('figure.figures-chart .recharts-bar-rectangle').count()).resolves.toBeGreaterThan(10);
    await card.scrollIntoViewIfNeeded();
    fs.mkdirSync(SHOTS, { recursive: true });
    await card.screenshot({ path: path.join(SHOTS, 'dashboard-figures-desktop.png'), animations: 'disabled' });

    await page.setViewportSize(PHONE);
    await eventually(
      async () => (await card.locator('figure.figures-chart .recharts-wrapper > svg.recharts-surface').count()) === 4,
      'the charts on the phone',
    );
    await expectNoSidewaysScroll();
    await card.screenshot({ path: path.join(SHOTS, 'dashboard-figures-phone.png'), animations: 'disabled' });
  }, 120_000);
});
