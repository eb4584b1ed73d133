/**
 * Browser test of autopay (account spec §2 'Compra automática - número cativo'):
 * a customer saves 3 captive numbers with a sandbox test card in /conta → an administrator opens
 * a new draw of the main series (POST /api/admin/dashboard/new) → the worker charges the card →
 * /conta shows the numbers as the customer's, paid. A declined test card (ending 0002): the
 * numbers are released and /conta shows none of them. The card number never reaches
 * POST /api/me/autopay: only the sandbox tokenizer sees it, and only its token is saved.
 * Screenshots of the dialog (phone and desktop) go to docs/screenshots/account/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page, Request } from 'playwright-core';
import { createUser, type TestContext } from '../helpers/context';
import { describeBrowser, settled, signInWithToken, useBrowser } from '../helpers/browser';
import { eventually } from '../helpers/eventually';
import { makeCpf } from '../helpers/cpf';
import { paintedColours } from '../helpers/screenshots';
import { contrastRatio, flatten } from '../helpers/contrast';
import { startTestWorker } from '../helpers/worker';
import type { RunningWorker } from '../../src/platform/queue';
import { readAppConfig } from '../../src/platform/app-config';
import { luhnValid } from '../../src/shared/autopay';
import { DEMO_PRODUCTS, seedDemo } from '../../seeds/demo';

const SHOTS = path.resolve(__dirname, '../../docs/screenshots/account');
const pad2 = (n: number) => String(n).padStart(2, '0');
const pad3 = (n: number) => String(n).padStart(3, '0');

/** A Luhn-valid 16-digit Visa-like number ending in `suffix` (the sandbox's test cards are decided by the ending). */
function testCard(suffix: string): string {
  for (let x = 0; x < 10; x++) {
    const digits = `4000000000${x}${'0'.repeat(5 - suffix.length)}${suffix}`.slice(0, 16);
    if (luhnValid(digits)) return digits;
  }
  throw new Error(`no Luhn-valid card ending in ${suffix}`);
}

describeBrowser('autopay in the browser', () => {
  const session = useBrowser({
    setup: async (app) => {
      await seedDemo(app.services.db);
    },
  });
  let t: TestContext;
  let page: Page;
  let worker: RunningWorker | null = null;
  beforeEach(() => ({ t, page } = session));
  afterEach(async () => {
    await worker?.close();
    worker = null;
  });

  const autopayDialog = () => page.getByRole('dialog').filter({ hasText: 'Compra automática - número cativo' });
  const cell = (n: number) => autopayDialog().getByRole('gridcell', { name: new RegExp(`^${pad2(n)}:`) });
  /** The participation card of a draw (phones show cards, not the table). */
  const participation = (drawId: number) => page.getByRole('article', { name: `Sorteio #${pad3(drawId)}`, exact: true });

  async function mainDraw(): Promise<number> {
    const { main_infoproduct_id } = await readAppConfig(t.services.db);
    const d = await t.services.db('draws').where({ infoproduct_id: main_infoproduct_id, status: 'open' }).first('id');
    return d.id;
  }

  async function openDialog(): Promise<void> {
    await page.goto(`${t.url}/conta`);
    await page.getByRole('button', { name: /compra automática/i }).click();
    await settled(autopayDialog());
    await autopayDialog().getByRole('grid', { name: 'Números cativos' }).waitFor();
  }

  async function fillCard(number: string, holder: string, doc: string): Promise<void> {
    const d = autopayDialog();
    await d.getByLabel('Número do cartão').fill(number);
    await d.getByLabel('Validade').fill('12/2030');
    await d.getByLabel('CVV').fill('123');
    await d.getByLabel('Nome do titular (como no cartão)').fill(holder);
    await d.getByLabel('CPF/CNPJ do titular').fill(doc);
  }

  /** Scrolls the dialog's wrapper (phones: the dialog is taller than the screen). */
  async function scrollDialog(to: 'top' | 'bottom'): Promise<void> {
    await page.evaluate(
      `(() => { const w = document.querySelector('.ant-modal-wrap'); if (w) w.scrollTop = ${to === 'top' ? 0 : 'w.scrollHeight'}; })()`,
    );
  }

  /** Records what the page sends to POST /api/me/autopay and to the sandbox tokenizer. */
  function watchRequests() {
    const saved: string[] = [];
    const tokenized: string[] = [];
    page.on('request', (r: Request) => {
      if (r.method() !== 'POST') return;
      const url = new URL(r.url());
      if (url.pathname === '/api/me/autopay') saved.push(r.postData() ?? '');
      if (url.pathname === '/api/sandbox/card-tokens') tokenized.push(r.postData() ?? '');
    });
    return { saved, tokenized };
  }

  /** Opens a new draw of the main series as an administrator, then lets a worker charge. */
  async function adminOpensNewDraw(): Promise<{ drawId: number; adminToken: string }> {
    const admin = await createUser(t, { admin: true });
    const before = await mainDraw();
    const r = await t.api('POST', '/api/admin/dashboard/new', { token: admin.token, body: {} });
    expect(r.status).toBe(201);
    expect(r.body.closed_draw_id).toBe(before);
    worker ??= await startTestWorker(t);
    return { drawId: r.body.draw_id as number, adminToken: admin.token };
  }

  it("phone layout of the captive grid measured from the DOM at 360 and 390 px (dialog margins, cells ≥ 32 px with a gap, no sideways scroll); /conta's desktop table shows the draw's full title", async () => {
    const { user, token } = await createUser(t, { name: 'Lia Layout' });
    await t.services.payments.grantVouchers({ user: user.email, product: DEMO_PRODUCTS[0].sku, quantity: '2' }, { via: 'cli' });
    await signInWithToken(session.context, token);
    fs.mkdirSync(SHOTS, { recursive: true });
    for (const width of [360, 390]) {
      await page.setViewportSize({ width, height: 780 });
      await openDialog();
      const m = await page.evaluate<{
        vw: number;
        scrollWidth: number;
        wrapScroll: number;
        wrapClient: number;
        grid: { left: number; right: number };
        intro: { left: number; right: number };
        title: { right: number };
        close: { left: number };
        cells: Array<{ x: number; y: number; w: number; h: number }>;
      }>(`(() => {
        const r = (e) => e.getBoundingClientRect();
        const modal = document.querySelector('.autopay-modal');
        const grid = modal.querySelector('[role="grid"]');
        const intro = modal.querySelector('.autopay-intro');
        const wrap = document.querySelector('.ant-modal-wrap');
        const cells = [...grid.querySelectorAll('[role="gridcell"]')].map((c) => { const b = r(c); return { x: b.left, y: b.top, w: b.width, h: b.height }; });
        return {
          vw: document.documentElement.clientWidth,
          scrollWidth: document.documentElement.scrollWidth,
          wrapScroll: wrap.scrollWidth,
          wrapClient: wrap.clientWidth,
          grid: { left: r(grid).left, right: r(grid).right },
          intro: { left: r(intro).left, right: r(intro).right },
          title: { right: Math.max(...[...modal.querySelectorAll('.ant-modal-title')].flatMap((t) => { const g = document.createRange(); g.selectNodeContents(t); return [...g.getClientRects()].map((b) => b.right); })) },
          close: { left: r(modal.querySelector('.ant-modal-close')).left },
          cells,
        };
      })()`);
      // No sideways scroll (page nor dialog); the grid keeps the dialog's side margins, aligned with its text.
      expect(m.scrollWidth).toBeLessThanOrEqual(m.vw);
      expect(m.wrapScroll).toBeLessThanOrEqual(m.wrapClient);
      expect(m.grid.left).toBeGreaterThanOrEqual(10);
      expect(m.vw - m.grid.right).toBeGreaterThanOrEqual(10);
      expect(Math.abs(m.grid.left - m.intro.left)).toBeLessThanOrEqual(1);
      // The dialog's title never runs under its close button.
      expect(m.title.right).toBeLessThanOrEqual(m.close.left);
      // Every cell at least 32 × 32 px (WCAG 2.2 target size); neighbours apart on both axes.
      expect(m.cells).toHaveLength(100);
      expect(Math.min(...m.cells.map((c) => Math.min(c.w, c.h)))).toBeGreaterThanOrEqual(32);
      expect(m.cells[1].x - (m.cells[0].x + m.cells[0].w)).toBeGreaterThanOrEqual(2);
      expect(m.cells[10].y - (m.cells[0].y + m.cells[0].h)).toBeGreaterThanOrEqual(2);
      expect(m.cells[99].x + m.cells[99].w).toBeLessThanOrEqual(m.grid.right + 0.5);
      await page.screenshot({ path: path.join(SHOTS, `autopay-grade-${width}.png`), animations: 'disabled' });
      await page.keyboard.press('Escape');
      await autopayDialog().waitFor({ state: 'hidden' });
    }

    // --- /conta at 1280 px: the draw's title in the participations table, whole (wrapped, never clipped) ---
    // A long title (an administrator renames the draw), so that it has to wrap.
    const open = await t.api('GET', '/api/draws?status=open&limit=50');
    const draw = open.body.items.find((d: { sku: string }) => d.sku === DEMO_PRODUCTS[0].sku);
    const admin = await createUser(t, { admin: true });
    const drawTitle = { title: 'Guia Prático da Lotomania - Edição Especial de Fim de Ano com Bônus' };
    const renamed = await t.api('PUT', `/api/admin/draws/${draw.id}`, { token: admin.token, body: { title: drawTitle.title } });
    expect(renamed.status).toBe(200);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${t.url}/conta`);
    const title = page.locator('.participations-table .participation-draw-title').first();
    await title.waitFor();
    await expect(title.innerText()).resolves.toBe(drawTitle.title);
    // Screen readers get the same text: the cell's accessible text holds the whole title.
    const esc = drawTitle.title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    await expect(
      page
        .getByRole('table')
        .getByRole('cell', { name: new RegExp(`${esc}$`) })
        .count(),
    ).resolves.toBe(1);
    const fit = await page.evaluate<{
      title: { sw: number; cw: number; sh: number; ch: number; overflow: string; lines: number };
      table: { sw: number; cw: number };
    }>(`(() => {
      const e = document.querySelector('.participations-table .participation-draw-title');
      const t = document.querySelector('.participations-table .ant-table-content');
      return {
        title: { sw: e.scrollWidth, cw: e.clientWidth, sh: e.scrollHeight, ch: e.clientHeight, overflow: getComputedStyle(e).textOverflow, lines: Math.round(e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).lineHeight)) },
        table: { sw: t.scrollWidth, cw: t.clientWidth },
      };
    })()`);
    expect(fit.title.sw).toBeLessThanOrEqual(fit.title.cw);
    expect(fit.title.sh).toBeLessThanOrEqual(fit.title.ch);
    expect(fit.title.overflow).not.toBe('ellipsis');
    expect(fit.title.lines).toBeGreaterThanOrEqual(2);
    // The table itself fits the card: no header or cell cut by a sideways scroll at 1280 px.
    expect(fit.table.sw).toBeLessThanOrEqual(fit.table.cw);
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: path.join(SHOTS, 'conta-participacoes-1280.png'), fullPage: true, animations: 'disabled' });
    // The next draws of the series inherit the title: give the demo's back to the other tests.
    const back = await t.api('PUT', `/api/admin/draws/${draw.id}`, {
      token: admin.token,
      body: { title: draw.title || draw.product_title },
    });
    expect(back.status).toBe(200);
  }, 120_000);

  it('saves 3 captive numbers with a sandbox card; a new draw opens; the worker charges; /conta shows them paid', async () => {
    const { user, token } = await createUser(t, { name: 'Marina Cativa' });
    await signInWithToken(session.context, token);
    const sent = watchRequests();
    const card = testCard('1111');
    const picks = [7, 13, 42];
    // Another customer already holds 17, 50 and 64 as captive numbers (through the API, as the browser would).
    const holder = await createUser(t);
    const tok = await t.api('POST', '/api/sandbox/card-tokens', {
      token: holder.token,
      body: {
        card_number: testCard('4444'),
        expiration_month: 1,
        expiration_year: 2031,
        security_code: '321',
        cardholder_name: 'OUTRA PESSOA',
        doc_number: makeCpf(555666777),
      },
    });
    expect(tok.status).toBe(201);
    const held = await t.api('POST', '/api/me/autopay', {
      token: holder.token,
      body: { active: true, numbers: [17, 50, 64], card_token: tok.body.id, holder_name: 'OUTRA PESSOA', doc_number: makeCpf(555666777) },
    });
    expect(held.status).toBe(200);

    await openDialog();
    const d = autopayDialog();
    for (const n of [17, 50, 64]) {
      await expect(cell(n).getAttribute('aria-label')).resolves.toBe(`${pad2(n)}: Cativo de outro cliente`);
      await expect(cell(n).isDisabled()).resolves.toBe(true);
    }
    // Dimmed but readable: the translucent cell over the dialog's own surface, as painted.
    const taken = await paintedColours(cell(17));
    const surface = await paintedColours(page.locator('.autopay-modal .ant-modal-container'));
    expect(contrastRatio(taken.color, flatten(taken.background, surface.background))).toBeGreaterThanOrEqual(4.5);
    // Nothing changed yet: 'Salvar' is disabled; never set up, so 'Compra automática ativa' is off.
    await expect(d.getByRole('button', { name: 'Salvar' }).isDisabled()).resolves.toBe(true);
    const toggle = d.getByRole('switch', { name: 'Compra automática ativa' });
    await expect(toggle.getAttribute('aria-checked')).resolves.toBe('false');
    await toggle.click();
    await expect(toggle.getAttribute('aria-checked')).resolves.toBe('true');
    for (const n of picks) await cell(n).click();
    for (const n of picks) await expect(cell(n).getAttribute('aria-label')).resolves.toBe(`${pad2(n)}: Seu número cativo`);
    await d.getByText('3 de 20').waitFor();
    // Saving without a card names what is missing.
    await d.getByRole('button', { name: 'Salvar' }).click();
    await d.getByText('Dados do cartão incompletos.').waitFor();

    // Cells of at least 32 px on the phone (WCAG 2.2 target size, with a gap); the customer's own cells readable (AA).
    const box = await cell(42).boundingBox();
    expect(box!.width).toBeGreaterThanOrEqual(32);
    const mine = await paintedColours(cell(42));
    expect(contrastRatio(mine.color, mine.background)).toBeGreaterThanOrEqual(4.5);

    await fillCard(card.replace(/(\d{4})(?=\d)/g, '$1 '), 'MARINA CATIVA', makeCpf(987654321));
    // Typing in the card form takes the 'incomplete' message away.
    await expect(d.getByText('Dados do cartão incompletos.').count()).resolves.toBe(0);
    fs.mkdirSync(SHOTS, { recursive: true });
    await scrollDialog('top');
    await page.screenshot({ path: path.join(SHOTS, 'autopay-dialog-phone.png'), animations: 'disabled' });
    await scrollDialog('bottom');
    await page.screenshot({ path: path.join(SHOTS, 'autopay-dialog-phone-card.png'), animations: 'disabled' });
    await d.getByRole('button', { name: 'Salvar' }).click();
    await page.getByText('Preferências salvas!').waitFor();
    await d.waitFor({ state: 'hidden' });
    await expect(page.getByLabel('Números cativos salvos').innerText()).resolves.toBe('07 13 42');
    await page.getByText(/•••• 1111/).waitFor();

    // The card went to the tokenizer only; our autopay endpoint got a token.
    expect(sent.tokenized).toHaveLength(1);
    expect(JSON.parse(sent.tokenized[0])).toMatchObject({ card_number: card, expiration_month: 12, expiration_year: 2030 });
    expect(sent.saved).toHaveLength(1);
    const body = JSON.parse(sent.saved[0]);
    expect(body).toMatchObject({ active: true, numbers: picks, holder_name: 'MARINA CATIVA' });
    expect(typeof body.card_token).toBe('string');
    expect(sent.saved[0]).not.toContain(card);
    expect(sent.saved[0]).not.toContain('"123"');

    // Reopening: the saved card and numbers; the same numbers are taken for someone else.
    const other = await createUser(t);
    const claims = await t.api('GET', '/api/autopay/claims', { token: other.token });
    expect(claims.body.taken).toEqual(expect.arrayContaining(picks));

    // --- the administrator opens a new draw of the main series; the worker charges the card ---
    const { drawId } = await adminOpensNewDraw();
    await eventually(
      async () => {
        const sold = await t.services.db('number_sales').where({ draw_id: drawId, user_id: user.id }).pluck('n');
        return sold.length === 3 ? sold : null;
      },
      'the 3 captive numbers sold to the customer',
      60_000,
      250,
    );

    // --- /conta: the new draw's participation holds the 3 numbers, paid ---
    await page.goto(`${t.url}/conta`);
    const row = participation(drawId);
    await row.waitFor({ timeout: 20_000 });
    await expect(row.getByRole('list', { name: 'Números' }).innerText()).resolves.toMatch(/07\s+13\s+42/);
    await row.getByText('PAGO', { exact: true }).waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'autopay-conta-phone.png'), fullPage: true, animations: 'disabled' });

    // Desktop screenshot of the dialog with the saved state.
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByRole('button', { name: /compra automática/i }).click();
    await settled(autopayDialog());
    await autopayDialog()
      .getByText(/Cartão salvo/)
      .waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'autopay-dialog-desktop.png'), animations: 'disabled' });
  }, 180_000);

  it('a declined card (ending 0002): the numbers are released and /conta shows none of them', async () => {
    const { user, token } = await createUser(t, { name: 'Rui Recusado' });
    await signInWithToken(session.context, token);
    const picks = [55, 66];

    await openDialog();
    const d = autopayDialog();
    await d.getByRole('switch', { name: 'Compra automática ativa' }).click();
    for (const n of picks) await cell(n).click();
    await fillCard(testCard('0002'), 'RUI RECUSADO', '11.222.333/0001-81');
    await d.getByRole('button', { name: 'Salvar' }).click();
    await page.getByText('Preferências salvas!').waitFor();

    const { drawId, adminToken } = await adminOpensNewDraw();
    // The admin's view of the runs (GET /api/admin/autopay/runs): the customer's run ends released.
    const run = await eventually(
      async () => {
        const r = await t.api('GET', `/api/admin/autopay/runs?draw_id=${drawId}`, { token: adminToken });
        const mine = (r.body.items ?? []).find((x: { user_id: number }) => x.user_id === user.id);
        return mine && ['released', 'failed'].includes(mine.status) ? mine : null;
      },
      'the declined run settled',
      60_000,
      250,
    );
    expect(run.numbers).toEqual(picks);
    expect(
      await t.services
        .db('number_sales')
        .where({ draw_id: drawId, user_id: user.id })
        .count({ c: '*' })
        .first()
        .then((r) => Number(r?.c)),
    ).toBe(0);
    const board = await t.api('GET', `/api/draws/${drawId}/numbers`);
    const statusOf = (n: number) => board.body.numbers.find((c: { n: number }) => c.n === n)?.status;
    for (const n of picks) expect(statusOf(n)).toBe('available');

    await page.goto(`${t.url}/conta`);
    await page.getByLabel('Números cativos salvos').waitFor();
    const row = participation(drawId);
    if (await row.count()) {
      const text = await row.innerText();
      for (const n of picks) expect(text).not.toMatch(new RegExp(`\\b${pad2(n)}\\b`));
      expect(text).not.toContain('PAGO');
    }
  }, 180_000);

  it("the customer's choices: the 21st number is refused, 'Cancelar compra automática' asks first and clears everything", async () => {
    const { token } = await createUser(t);
    await signInWithToken(session.context, token);
    await openDialog();
    const d = autopayDialog();
    await d.getByRole('switch', { name: 'Compra automática ativa' }).click();
    const free: number[] = [];
    for (let n = 80; n <= 99 && free.length < 21; n++) free.push(n);
    for (let n = 20; free.length < 21; n++) free.push(n);
    for (const n of free.slice(0, 20)) await cell(n).click();
    await d.getByText('20 de 20').waitFor();
    await cell(free[20]).click();
    await d.getByText(/no máximo 20 números cativos/).waitFor();
    await expect(cell(free[20]).getAttribute('aria-selected')).resolves.toBe('false');
    for (const n of free.slice(3, 20)) await cell(n).click();
    await fillCard(testCard('4242'), 'ANA', makeCpf(111222333));
    await d.getByRole('button', { name: 'Salvar' }).click();
    await page.getByText('Preferências salvas!').waitFor();

    await page.getByRole('button', { name: /compra automática/i }).click();
    await settled(autopayDialog());
    await autopayDialog().getByRole('button', { name: 'Cancelar compra automática' }).click();
    const confirm = page.getByRole('dialog').filter({ hasText: 'Isso apagará os números cativos e o cartão salvo.' });
    await settled(confirm);
    await expect(confirm.innerText()).resolves.toContain(
      'Tem certeza que deseja cancelar a compra automática? Isso apagará os números cativos e o cartão salvo.',
    );
    await confirm.getByRole('button', { name: 'Sim, cancelar' }).click();
    await page.getByText('Compra automática cancelada.').waitFor();
    const after = await t.api('GET', '/api/me/autopay', { token });
    expect(after.body).toMatchObject({ numbers: [], last4: null });
    await page.getByRole('button', { name: 'Configurar compra automática' }).waitFor();
  }, 120_000);
});
