/**
 * Browser test of what a buyer sees after paying, and of the number board by keyboard and on
 * phones: the approved e-book purchase on /conta (PAGO, 'Baixar e-book' and 'N números para
 * escolher' before any number is picked), the receipt mail in the outbox and the same receipt on
 * /conta, the PIX code's countdown and expiry, the quantity limit, a purchase and a pick made with
 * the keyboard only, and the board's phone layout measured from the DOM (360 and 390 px).
 * Screenshots go to docs/screenshots/buyer/ (committed, looked at by a person).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { createUser, type TestContext } from '../helpers/context';
import { describeBrowser, settled, signInWithToken, useBrowser } from '../helpers/browser';
import { eventually } from '../helpers/eventually';
import { DEMO_PRODUCTS, seedDemo } from '../../seeds/demo';
import { formatBrasiliaDateTime, formatReceiptAmount } from '../../src/shared/receipt';

const PRODUCT = DEMO_PRODUCTS[0]; // EBOOK-GUIA-LOTOMANIA: R$ 10,00 per number
const SHOTS = path.resolve(__dirname, '../../docs/screenshots/buyer');

describeBrowser('what the buyer sees after paying; the board by keyboard and on phones', () => {
  const session = useBrowser({
    setup: async (app) => {
      await seedDemo(app.services.db);
    },
  });
  let t: TestContext;
  let context: BrowserContext;
  let page: Page;
  beforeEach(() => ({ t, context, page } = session));

  const dialog = (name: string) => page.getByRole('dialog').filter({ hasText: name });
  const pad3 = (n: number) => String(n).padStart(3, '0');

  async function shot(name: string, fullPage = false) {
    fs.mkdirSync(SHOTS, { recursive: true });
    if (fullPage) await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage, animations: 'disabled' });
  }

  async function openDrawOf(sku: string): Promise<number> {
    const p = await t.services.db('infoproducts').where({ sku }).first('id');
    const d = await t.services.db('draws').where({ infoproduct_id: p.id, status: 'open' }).first('id');
    return d.id;
  }

  /** What has the focus: its role, accessible name bits and classes (runs in the page). */
  const focused = () =>
    page.evaluate<{ role: string | null; label: string | null; text: string; cls: string; tag: string; tabindex: string | null }>(
      `(() => { const e = document.activeElement; return e ? { role: e.getAttribute('role'), label: e.getAttribute('aria-label'), text: (e.textContent || '').trim(), cls: String(e.className || ''), tag: e.tagName, tabindex: e.getAttribute('tabindex') } : null; })()`,
    );

  /** Presses Tab until `match` says the focused element is the one wanted (at most 60 times). */
  async function tabTo(what: string, match: (f: Awaited<ReturnType<typeof focused>>) => boolean, key = 'Tab') {
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press(key);
      const f = await focused();
      if (f && match(f)) return f;
    }
    throw new Error(`Tab never reached ${what}`);
  }

  it('an approved e-book purchase: /conta shows PAGO, Baixar e-book and the numbers to choose at once; one receipt mail; the same receipt on /conta', async () => {
    const { user, token } = await createUser(t, { name: 'Beatriz Moraes' });
    await signInWithToken(context, token);
    const drawId = await openDrawOf(PRODUCT.sku);

    await page.goto(`${t.url}/comprar/${PRODUCT.sku}`);
    await page.getByRole('button', { name: 'Comprar e-book' }).click();
    const qty = await settled(dialog('Quantos e-books deseja?'));
    await qty.getByRole('button', { name: 'Aumentar quantidade' }).click();
    await qty.getByRole('button', { name: /Pagar R\$\s?20,00 com PIX/ }).click();
    await dialog('Pagamento via PIX').getByRole('img', { name: 'QR Code do PIX' }).waitFor();
    const payment = await t.services.db('payments').where({ user_id: user.id }).orderBy('id', 'desc').first();

    // Approved twice (the CLI, then the poll sees it again): one receipt mail all the same.
    await t.services.payments.approveSandbox(payment.id, { via: 'cli' });
    await t.services.payments.poll(payment.id);
    await page.waitForURL(`${t.url}/numeros`, { timeout: 20_000 });

    const mails = await t.services.db('mail_outbox').where({ to_address: user.email, template: 'purchase_receipt' });
    expect(mails).toHaveLength(1);
    const paid = await t.services.db('payments').where({ id: payment.id }).first();
    const body: string = mails[0].body_text;
    expect(mails[0].subject).toBe('Comprovante de compra');
    expect(body).toContain(`Valor: ${formatReceiptAmount(2000)}`);
    expect(body).toContain(`Data e hora: ${formatBrasiliaDateTime(paid.paid_at)}`);
    expect(body).toContain(`Pagamento nº: ${payment.id}`);
    expect(body).toContain(`Transação no provedor: ${paid.provider_payment_id}`);
    expect(body).toContain(`Compra: 2 e-books “${PRODUCT.title}” (2 números para escolher no Sorteio #${pad3(drawId)})`);
    expect(body).toContain('http://cotaverde.test/conta');

    // --- /conta on a phone, before any number is picked ---
    await page.goto(`${t.url}/conta`);
    const card = page.getByRole('article', { name: `Sorteio #${pad3(drawId)}`, exact: true });
    await card.waitFor();
    await expect(card.locator('.pay-badge').innerText()).resolves.toBe('PAGO');
    await expect(card.getByText('PENDENTE').count()).resolves.toBe(0);
    await card.getByText('2 números para escolher').waitFor();
    await card.getByRole('button', { name: 'Baixar e-book' }).waitFor();
    await card.getByRole('button', { name: 'Escolher' }).waitFor();
    await expect(page.getByText(/vouchers? para escolher/).count()).resolves.toBe(0);

    // The receipt, as in the mail.
    const receipts = page.locator('.receipts-card');
    await receipts.getByText('Comprovantes de compra').waitFor();
    const receipt = receipts.locator(`details[data-payment-id="${payment.id}"]`);
    await receipt.locator('summary').click();
    const shown = await receipt.locator('.receipt-fields').innerText();
    for (const line of body.split('\n').filter((l) => /^(Valor|Data e hora|Compra|Pagamento nº|Transação no provedor):/.test(l))) {
      const [k, v] = [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)];
      expect(shown).toContain(k);
      expect(shown.replace(/\s+/g, ' ')).toContain(v.replace(/\s+/g, ' '));
    }
    await shot('conta-pago-sem-numeros-390', true);

    // The e-book downloads (a signed link answered 200 with the PDF).
    const link = await t.api('GET', `/api/ebooks/by-draw/${drawId}`, { token });
    expect(link.status).toBe(200);

    // --- the same on a desktop: the table row ---
    await page.setViewportSize({ width: 1280, height: 900 });
    const row = page.locator('.participations-table tbody tr').filter({ hasText: `Sorteio #${pad3(drawId)}` });
    await row.waitFor();
    await expect(row.locator('.pay-badge').innerText()).resolves.toBe('PAGO');
    await row.getByText('2 números para escolher').waitFor();
    await row.getByRole('button', { name: 'Baixar e-book' }).waitFor();
    await row.getByRole('button', { name: 'Escolher' }).waitFor();
    await shot('conta-pago-sem-numeros-1280', true);
  }, 150_000);

  it('PIX code: a live mm:ss countdown; at zero "Código expirado" and a button that makes a new code', async () => {
    const { user, token } = await createUser(t);
    await signInWithToken(context, token);
    // The first answer says the code lapses in 6 s (the server's is 30 min): the client's clock runs it out.
    let shortened = false;
    await page.route('**/api/payments/infoproduct', async (route) => {
      const res = await route.fetch();
      const json = await res.json();
      if (!shortened) {
        shortened = true;
        json.expires_at = new Date(Date.now() + 6_000).toISOString();
      }
      await route.fulfill({ response: res, json });
    });
    await page.goto(`${t.url}/comprar/${PRODUCT.sku}`);
    await page.getByRole('button', { name: 'Comprar e-book' }).click();
    await (await settled(dialog('Quantos e-books deseja?'))).getByRole('button', { name: /Pagar R\$\s?10,00 com PIX/ }).click();
    const pix = dialog('Pagamento via PIX');
    await pix.getByRole('img', { name: 'QR Code do PIX' }).waitFor();
    const countdown = pix.locator('.pix-countdown time');
    const first = await countdown.innerText();
    expect(first).toMatch(/^00:0[0-6]$/);
    await expect(pix.locator('.pix-expiry').innerText()).resolves.toMatch(/^Válido até \d\d:\d\d · expira em 00:0\d$/);
    await eventually(async () => (await countdown.innerText().catch(() => first)) !== first, 'the countdown moves');
    await shot('pix-contagem-390');

    await pix.getByText('Código expirado').waitFor({ timeout: 15_000 });
    await expect(pix.getByRole('img', { name: 'QR Code do PIX' }).count()).resolves.toBe(0);
    await expect(pix.getByRole('button', { name: 'Já paguei' }).isDisabled()).resolves.toBe(true);
    await shot('pix-expirado-390');

    // The provider lets it lapse too; a new code is made.
    const old = await t.services.db('payments').where({ user_id: user.id }).orderBy('id', 'desc').first();
    await t.services.db('payments').where({ id: old.id }).update({ status: 'expired', lapsed_at: t.services.db.fn.now() });
    await pix.getByRole('button', { name: 'Gerar novo código' }).click();
    await pix.getByRole('img', { name: 'QR Code do PIX' }).waitFor();
    await expect(countdown.innerText()).resolves.toMatch(/^(29|30):\d\d$/);
    const fresh = await t.services.db('payments').where({ user_id: user.id }).orderBy('id', 'desc').first();
    expect(fresh.id).not.toBe(old.id);
    expect(fresh).toMatchObject({ status: 'pending', quantity: 1, amount_cents: 1000 });
    await expect(pix.getByRole('textbox', { name: 'Código PIX copia e cola' }).inputValue()).resolves.toBe(fresh.qr_code);
  }, 120_000);

  it('quantity: above 20 becomes 20 with the limit said; empty keeps Pagar disabled; the total always matches the field', async () => {
    const { token } = await createUser(t);
    await signInWithToken(context, token);
    await page.goto(`${t.url}/comprar/${PRODUCT.sku}`);
    await page.getByRole('button', { name: 'Comprar e-book' }).click();
    const qty = await settled(dialog('Quantos e-books deseja?'));
    const field = qty.getByRole('spinbutton', { name: 'Quantidade de e-books' });

    await field.fill('25');
    await expect(field.inputValue()).resolves.toBe('20');
    await qty.getByRole('alert').filter({ hasText: 'Limite: até 20 unidades por compra' }).waitFor();
    await qty.getByRole('button', { name: /Pagar R\$\s?200,00 com PIX/ }).waitFor();
    await expect(qty.locator('.qty-total').innerText()).resolves.toMatch(/Total \(20 × R\$\s?10,00\)\s*R\$\s?200,00/);
    await expect(qty.getByRole('button', { name: 'Aumentar quantidade' }).isDisabled()).resolves.toBe(true);
    await shot('quantidade-limite-390');

    await field.fill('');
    await qty.getByText('Informe uma quantidade de 1 a 20.').waitFor();
    await expect(qty.getByRole('button', { name: 'Pagar com PIX' }).isDisabled()).resolves.toBe(true);
    await expect(qty.locator('.qty-total').innerText()).resolves.toMatch(/Total\s*—/);

    await field.pressSequentially('7');
    await qty.getByRole('button', { name: /Pagar R\$\s?70,00 com PIX/ }).waitFor();
    await expect(qty.locator('.qty-total').innerText()).resolves.toMatch(/Total \(7 × R\$\s?10,00\)\s*R\$\s?70,00/);
    await expect(qty.getByRole('alert').count()).resolves.toBe(0);
  }, 90_000);

  it('keyboard only: buys an e-book, then picks two numbers on a board with one Tab stop; the result message gets the focus', async () => {
    const { user, token } = await createUser(t, { name: 'Caio Teclado' });
    await signInWithToken(context, token);
    const drawId = await openDrawOf(PRODUCT.sku);
    // Numbers 0 and 1 are taken: the keys still reach them (aria-disabled), a toggle does nothing.
    const other = await createUser(t);
    await t.services
      .db('draw_numbers')
      .where({ draw_id: drawId })
      .whereIn('n', [0, 1])
      .update({ status: 'sold', owner_user_id: other.user.id });
    t.services.draws.invalidateBoard(drawId);

    await page.goto(`${t.url}/comprar/${PRODUCT.sku}`);
    await page.getByRole('heading', { level: 1, name: PRODUCT.title }).waitFor();
    await tabTo('Comprar e-book', (f) => f.text === 'Comprar e-book');
    await page.keyboard.press('Enter');
    const qty = await settled(dialog('Quantos e-books deseja?'));
    await tabTo('the quantity field', (f) => f.label === 'Quantidade de e-books');
    await page.keyboard.press('ArrowUp');
    await expect(qty.getByRole('spinbutton', { name: 'Quantidade de e-books' }).inputValue()).resolves.toBe('2');
    // Enter in the field pays (and does not leak into the PIX dialog that opens).
    await page.keyboard.press('Enter');
    const pix = dialog('Pagamento via PIX');
    await pix.getByRole('img', { name: 'QR Code do PIX' }).waitFor();
    const payment = await t.services.db('payments').where({ user_id: user.id }).orderBy('id', 'desc').first();
    expect(payment).toMatchObject({ quantity: 2, amount_cents: 2000 });
    await t.services.payments.approveSandbox(payment.id, { via: 'cli' });
    await page.waitForURL(`${t.url}/numeros`, { timeout: 20_000 });
    await page.getByText('Você pode escolher 2 números agora').waitFor();

    // One Tab stop: exactly one cell is tabbable, and Tab enters the board at it.
    const grid = page.getByRole('grid');
    await expect(grid.locator('[role="gridcell"][tabindex="0"]').count()).resolves.toBe(1);
    await expect(grid.locator('[role="gridcell"][tabindex="-1"]').count()).resolves.toBe(99);
    await expect(grid.getByRole('row').count()).resolves.toBe(10);
    await page.evaluate('window.scrollTo(0, 0)');
    const entered = await tabTo('the board', (f) => f.role === 'gridcell');
    expect(entered.label).toBe('00: Indisponível');
    // Tab again leaves the board at once (no 100 stops).
    await page.keyboard.press('Tab');
    expect((await focused()).role).not.toBe('gridcell');
    await page.keyboard.press('Shift+Tab');
    expect((await focused()).label).toBe('00: Indisponível');

    // A taken number does not toggle; arrows, End, Home move.
    await page.keyboard.press('Space');
    await expect(page.getByText('Selecionados: 0').count()).resolves.toBe(1);
    await page.keyboard.press('ArrowRight');
    expect((await focused()).label).toBe('01: Indisponível');
    await page.keyboard.press('End');
    expect((await focused()).label).toBe('09: Disponível');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect((await focused()).label).toBe('29: Disponível');
    await page.keyboard.press('Space');
    await expect(grid.getByRole('gridcell', { name: '29: selecionado' }).getAttribute('aria-selected')).resolves.toBe('true');
    await page.keyboard.press('Home');
    expect((await focused()).label).toBe('20: Disponível');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowLeft'); // 09 (wraps to the previous row's end)
    await page.keyboard.press('ArrowRight');
    expect((await focused()).label).toBe('10: Disponível');
    await page.keyboard.press('Enter');
    await page.getByText('Selecionados: 2').waitFor();
    await shot('numeros-teclado-390');

    // Out of the board to CONFIRMAR, then the dialog's CONFIRMAR, all by keyboard.
    await tabTo('CONFIRMAR', (f) => f.text === 'CONFIRMAR');
    await page.keyboard.press('Enter');
    await settled(dialog('Confirmar números usando vouchers'));
    await tabTo('the dialog CONFIRMAR', (f) => f.text === 'CONFIRMAR');
    await page.keyboard.press('Enter');
    await page.getByText('Números confirmados com sucesso! Boa sorte').waitFor();
    await eventually(async () => (await focused()).cls.includes('numbers-result'), 'the result message has the focus');
    await expect(page.locator('.numbers-result').innerText()).resolves.toContain('Números 10, 29');
    await page.getByRole('gridcell', { name: '10: Seu número', exact: true }).waitFor();
    const sold = await t.services.db('draw_numbers').where({ draw_id: drawId, owner_user_id: user.id }).orderBy('n').pluck('n');
    expect(sold).toEqual([10, 29]);
    await shot('numeros-confirmado-390');

    await t.services
      .db('draw_numbers')
      .where({ draw_id: drawId })
      .whereIn('n', [0, 1])
      .update({ status: 'available', owner_user_id: null });
    t.services.draws.invalidateBoard(drawId);
  }, 150_000);

  it('phone layout measured from the DOM at 360 and 390 px: page margins kept, cells ≥ 32 px with space between, an opaque sticky bar', async () => {
    const { token, user } = await createUser(t);
    await t.services.payments.grantVouchers({ user: user.email, product: PRODUCT.sku, quantity: '2' }, { via: 'cli' });
    await signInWithToken(context, token);
    for (const width of [360, 390]) {
      await page.setViewportSize({ width, height: 780 });
      await page.goto(`${t.url}/numeros`);
      await page.getByRole('grid').waitFor();
      const m = await page.evaluate<{
        vw: number;
        scrollWidth: number;
        grid: { left: number; right: number };
        header: { left: number; right: number };
        cells: Array<{ n: number; x: number; y: number; w: number; h: number }>;
        bar: { background: string; backdrop: string; position: string };
      }>(`(() => {
        const r = (e) => e.getBoundingClientRect();
        const grid = document.querySelector('[role="grid"]');
        const header = document.querySelector('.numbers-board-head');
        const cells = [...grid.querySelectorAll('[role="gridcell"]')].map((c, n) => { const b = r(c); return { n, x: b.left, y: b.top, w: b.width, h: b.height }; });
        const bar = getComputedStyle(document.querySelector('.numbers-panel'));
        return {
          vw: document.documentElement.clientWidth,
          scrollWidth: document.documentElement.scrollWidth,
          grid: { left: r(grid).left, right: r(grid).right },
          header: { left: r(header).left, right: r(header).right },
          cells,
          bar: { background: bar.backgroundColor, backdrop: bar.backdropFilter || 'none', position: bar.position },
        };
      })()`);
      // No sideways scroll; the grid sits inside the page's margins, aligned with the board's heading.
      expect(m.scrollWidth).toBeLessThanOrEqual(m.vw);
      expect(m.grid.left).toBeGreaterThanOrEqual(10);
      expect(m.vw - m.grid.right).toBeGreaterThanOrEqual(10);
      expect(Math.abs(m.grid.left - m.header.left)).toBeLessThanOrEqual(1);
      // Every cell at least 32 × 32 px; neighbours apart (a gap on both axes).
      expect(m.cells).toHaveLength(100);
      expect(Math.min(...m.cells.map((c) => Math.min(c.w, c.h)))).toBeGreaterThanOrEqual(32);
      const gapX = m.cells[1].x - (m.cells[0].x + m.cells[0].w);
      const gapY = m.cells[10].y - (m.cells[0].y + m.cells[0].h);
      expect(gapX).toBeGreaterThanOrEqual(2);
      expect(gapY).toBeGreaterThanOrEqual(2);
      // The sticky LIMPAR/CONFIRMAR bar is opaque: rgb(), or rgba() with alpha 1; no blur of what is under it.
      expect(m.bar.position).toBe('sticky');
      const alpha = /rgba\([^)]*,\s*([\d.]+)\)/.exec(m.bar.background)?.[1];
      expect(alpha === undefined || Number(alpha) === 1).toBe(true);
      expect(m.bar.backdrop).toBe('none');
      // Rows 70-99 under the bar: scroll so they pass beneath it, and look.
      await page.evaluate('window.scrollTo(0, 260)');
      await shot(`numeros-celular-${width}`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${t.url}/numeros`);
    await page.getByRole('grid').waitFor();
    await shot('numeros-1280');
  }, 120_000);
});
