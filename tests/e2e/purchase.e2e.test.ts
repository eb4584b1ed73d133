/**
 * Browser test of the storefront and the purchase flow (storefront spec §2 Home and Catalogue,
 * §4 "Purchase flow", §5): the home cards with their boards, the catalogue and product page, and
 * a whole purchase — anonymous visitor → sign-in → quantity → PIX → approval → /numeros → numbers
 * confirmed. Phone-sized screen, real API serving the built SPA (web/dist), demo catalogue.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { createUser, type TestContext } from '../helpers/context';
import { describeBrowser, settled, signInWithToken, submitLogin, useBrowser } from '../helpers/browser';
import { paintedContrast, saveScreenshot } from '../helpers/screenshots';
import { AA_TEXT } from '../helpers/contrast';
import { eventually } from '../helpers/eventually';
import { DEMO_PRODUCTS, seedDemo } from '../../seeds/demo';

const NUMBERS_PAGE = path.resolve(__dirname, '../../web/src/pages/numbers/NumbersPage.tsx');
const FIRST = DEMO_PRODUCTS[0]; // EBOOK-GUIA-LOTOMANIA: R$ 10,00 per number, R$ 500,00 prize

describeBrowser('storefront and purchase flow in the browser', () => {
  const session = useBrowser({
    setup: async (app) => {
      await seedDemo(app.services.db);
    },
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  let t: TestContext;
  let context: BrowserContext;
  let page: Page;
  // The hooks of useBrowser fill the session in; each test reads its own page.
  beforeEach(() => ({ t, context, page } = session));

  const card = (productTitle: string) => page.getByRole('article', { name: productTitle });
  const dialog = (name: string) => page.getByRole('dialog').filter({ hasText: name });

  async function productId(sku: string): Promise<number> {
    return (await t.services.db('infoproducts').where({ sku }).first('id')).id;
  }

  it('home: one card per open product, each with prize, price, availability and a 100-number board', async () => {
    // One number sold and one reserved on the first product's board.
    const pid = await productId(FIRST.sku);
    const draw = await t.services.db('draws').where({ infoproduct_id: pid, status: 'open' }).first('id');
    const owner = await createUser(t, { name: 'Ana Beatriz Costa' });
    await t.services.db('draw_numbers').where({ draw_id: draw.id, n: 12 }).update({ status: 'sold', owner_user_id: owner.user.id });
    const other = await createUser(t);
    const held = await t.api('POST', '/api/reservations', { token: other.token, body: { numbers: [34], draw_id: draw.id } });
    expect(held.status).toBe(201);
    t.services.draws.invalidateBoard(draw.id);

    await page.goto(`${t.url}/`);
    await card(FIRST.title).waitFor();
    await expect(page.getByRole('article').count()).resolves.toBe(DEMO_PRODUCTS.length);

    for (const p of DEMO_PRODUCTS) {
      const c = card(p.title);
      await expect(c.getByRole('heading', { name: p.title }).isVisible()).resolves.toBe(true);
      await expect(c.getByText(p.subtitle).isVisible()).resolves.toBe(true);
      await expect(c.getByText('de prêmio').isVisible()).resolves.toBe(true);
      await expect(c.getByText('/ 1 número').isVisible()).resolves.toBe(true);
      await expect(c.getByText(/números disponíveis/).isVisible()).resolves.toBe(true);
      await expect(c.getByRole('grid').getByRole('gridcell').count()).resolves.toBe(100);
      await expect(c.getByRole('button', { name: 'Comprar e-book' }).isVisible()).resolves.toBe(true);
      await expect(c.getByRole('link', { name: /grupo da comunidade/ }).isVisible()).resolves.toBe(true);
      for (const legend of ['Disponível', 'Reservado', 'Indisponível']) {
        await expect(c.getByRole('list', { name: 'Legenda' }).getByText(legend, { exact: true }).isVisible()).resolves.toBe(true);
      }
    }

    const first = card(FIRST.title);
    // Intl pt-BR puts a no-break space after 'R$'.
    await expect(first.innerText()).resolves.toMatch(/R\$\s500,00\s+de prêmio/);
    await expect(first.innerText()).resolves.toMatch(/R\$\s10,00\s+\/ 1 número/);
    await expect(first.getByText('98 de 100 números disponíveis').isVisible()).resolves.toBe(true);
    await expect(first.getByRole('gridcell', { name: '12: Indisponível' }).count()).resolves.toBe(1);
    await expect(first.getByRole('gridcell', { name: '34: Reservado' }).count()).resolves.toBe(1);
    await expect(first.getByRole('gridcell', { name: '00: Disponível' }).count()).resolves.toBe(1);
    // Read-only: the cells are not buttons.
    await expect(first.getByRole('grid').getByRole('button').count()).resolves.toBe(0);
    // The cover comes from the public covers path.
    await expect(first.getByRole('img', { name: `Capa do e-book ${FIRST.title}` }).getAttribute('src')).resolves.toBe(FIRST.cover_url);
  }, 120_000);

  it('catalogue lists the open products by category and leads to the product page', async () => {
    await page.goto(`${t.url}/infoprodutos`);
    await page.getByRole('heading', { level: 1, name: 'INFOPRODUTOS • SORTEIOS' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Lotomania' }).waitFor();
    const buy = page.getByRole('link', { name: 'COMPRAR E-BOOK' });
    await expect(buy.count()).resolves.toBe(DEMO_PRODUCTS.length);
    await expect(page.getByText('LOTOMANIA', { exact: true }).count()).resolves.toBe(DEMO_PRODUCTS.length);
    for (const label of ['Prêmio', 'Ticket', 'Cotas']) {
      await expect(page.getByText(label, { exact: true }).count()).resolves.toBe(DEMO_PRODUCTS.length);
    }
    await expect(buy.first().getAttribute('href')).resolves.toBe(`/comprar/${encodeURIComponent(FIRST.sku)}`);

    await buy.first().click();
    await page.waitForURL(`${t.url}/comprar/${FIRST.sku}`);
    await page.getByRole('heading', { level: 1, name: FIRST.title }).waitFor();
    await expect(page.getByText(FIRST.description).isVisible()).resolves.toBe(true);
    // 98: the first test sold one number and reserved another.
    await expect(page.getByText('98 de 100 números disponíveis').isVisible()).resolves.toBe(true);
    await expect(page.getByRole('grid').getByRole('gridcell').count()).resolves.toBe(100);
    await expect(page.getByRole('button', { name: 'Comprar e-book' }).isVisible()).resolves.toBe(true);

    await page.goto(`${t.url}/comprar/NAO-EXISTE`);
    await page.getByRole('heading', { level: 1, name: 'E-book não encontrado' }).waitFor();
  }, 120_000);

  it('buys 3 e-books: sign-in, quantity, PIX, approval, then 3 numbers picked on /numeros', async () => {
    const { user, email, password } = await createUser(t);
    const pid = await productId(FIRST.sku);

    // --- anonymous: the buy button asks for a sign-in ---
    await page.goto(`${t.url}/`);
    await card(FIRST.title).getByRole('button', { name: 'Comprar e-book' }).click();
    const authAlert = await settled(dialog('Para comprar e-books é necessário estar autenticado.'));
    await authAlert.getByRole('button', { name: 'Fazer login' }).click();
    await page.waitForURL(`${t.url}/login`);
    await page.getByText('Faça login para comprar o e-book.').waitFor();

    // --- sign-in: back home, the quantity dialog reopens for that e-book ---
    await submitLogin(page, email, password);
    await page.waitForURL(`${t.url}/`);
    const qty = await settled(dialog('Quantos e-books deseja?'));
    await expect(qty.getByText(FIRST.title).isVisible()).resolves.toBe(true);
    await expect(qty.getByText('Limite: até 20 unidades por compra').isVisible()).resolves.toBe(true);
    const qtyInput = qty.getByRole('spinbutton', { name: 'Quantidade de e-books' });
    await expect(qtyInput.inputValue()).resolves.toBe('1');
    await expect(qty.getByRole('button', { name: 'Diminuir quantidade' }).isDisabled()).resolves.toBe(true);
    await qty.getByRole('button', { name: 'Aumentar quantidade' }).click();
    await qty.getByRole('button', { name: 'Aumentar quantidade' }).click();
    await expect(qtyInput.inputValue()).resolves.toBe('3');
    await expect(qty.innerText()).resolves.toMatch(/R\$\s30,00/);
    // A reload of the home page must not reopen the dialog: the pending purchase is consumed.
    await expect(page.evaluate<string | null>('window.sessionStorage.getItem("cv_pending_buy")')).resolves.toBeNull();
    await qty.getByRole('button', { name: /Pagar R\$\s?30,00 com PIX/ }).click();

    // --- PIX dialog: amount, 240x240 QR image, copy-and-paste code ---
    const pix = dialog('Pagamento via PIX');
    await pix.waitFor();
    const qr = pix.getByRole('img', { name: 'QR Code do PIX' });
    await qr.waitFor();
    await expect(qr.getAttribute('src')).resolves.toMatch(/^data:image\/png;base64,/);
    // Runs in the page; written as a string because this file is compiled without DOM types.
    const qrSize = page.evaluate<number[]>(
      `(() => { const i = document.querySelector('img[alt="QR Code do PIX"]'); return [i.naturalWidth, i.naturalHeight]; })()`,
    );
    await expect(qrSize).resolves.toEqual([240, 240]);
    await expect(pix.innerText()).resolves.toMatch(/R\$\s30,00/);
    const code = await pix.getByRole('textbox', { name: 'Código PIX copia e cola' }).inputValue();
    expect(code).toMatch(/^000201/);
    await pix.getByRole('button', { name: 'Copiar código PIX' }).click();
    await page.getByText('Código PIX copiado!', { exact: false }).waitFor();
    await expect(page.evaluate<string>('navigator.clipboard.readText()')).resolves.toBe(code);

    const payment = await t.services.db('payments').where({ user_id: user.id }).orderBy('id', 'desc').first();
    expect(payment).toMatchObject({
      kind: 'infoproduct',
      status: 'pending',
      quantity: 3,
      amount_cents: 3000,
      infoproduct_id: pid,
      qr_code: code,
    });

    // The primary button's white text on its green, as painted: WCAG AA.
    // Measured once enabled (paintedContrast itself waits for the button to be at rest).
    const paidButton = pix.getByRole('button', { name: 'Já paguei' });
    await eventually(async () => (await paidButton.isEnabled()) || null, "'Já paguei' to be enabled");
    await expect(paintedContrast(paidButton)).resolves.toBeGreaterThanOrEqual(AA_TEXT);

    // The code's expiry: 'Válido até HH:mm' with a live mm:ss countdown that moves.
    const countdown = pix.locator('.pix-countdown time');
    const first = await countdown.innerText();
    expect(first).toMatch(/^\d\d:\d\d$/);
    await expect(pix.locator('.pix-expiry').innerText()).resolves.toMatch(/^Válido até \d\d:\d\d · expira em \d\d:\d\d$/);
    await eventually(async () => (await countdown.innerText()) !== first, 'the countdown moves');

    // 'Já paguei' before paying: the answer shows inside the PIX dialog (no second dialog, no
    // toast), with what happens next (nothing is picked yet: the payment brings the e-books and
    // the right to choose numbers).
    await pix.getByRole('button', { name: 'Já paguei' }).click();
    await pix.getByText('Status: pendente').waitFor();
    await pix
      .getByText('Assim que o pagamento for confirmado, você recebe os e-books e o direito de escolher seus números na tabela.')
      .waitFor();
    await expect(page.getByRole('dialog').count()).resolves.toBe(1);
    await expect(
      page
        .locator('.ant-message-notice')
        .filter({ hasText: /Status|Assim que o pagamento/ })
        .count(),
    ).resolves.toBe(0);
    await expect(page.getByText('ficam bloqueados como indisponíveis', { exact: false }).count()).resolves.toBe(0);
    await saveScreenshot(page, 'purchase-pix-paid-answer');

    // Asked again; then the payment goes through.
    await pix.getByRole('button', { name: 'Já paguei' }).click();
    await pix.getByText('Status: pendente').waitFor();

    // --- the payment is approved at the provider; the 3-second poll sees it ---
    await t.services.payments.approveSandbox(payment.id, { via: 'cli' });
    const approved = dialog('Pagamento aprovado');
    await approved.getByText('Pagamento aprovado! Preparando a sua tabela…').waitFor({ timeout: 15_000 });
    await pix.waitFor({ state: 'hidden' });
    await expect(page.getByRole('dialog').filter({ hasText: 'Status:' }).count()).resolves.toBe(0);
    await saveScreenshot(page, 'purchase-approved-dialog');
    // Non-closable: no close button.
    await expect(approved.getByRole('button', { name: /Close|Fechar/ }).count()).resolves.toBe(0);

    // --- /numeros, with the 3 vouchers of this purchase ---
    await page.waitForURL(`${t.url}/numeros`, { timeout: 15_000 });
    const navState = await page.evaluate<{ drawId: number; paymentId: number; product: { id: number } }>('window.history.state.usr');
    const openDraw = await t.services.db('draws').where({ infoproduct_id: pid, status: 'open' }).first('id');
    expect(navState).toMatchObject({ drawId: openDraw.id, paymentId: payment.id, product: { id: pid, sku: FIRST.sku } });
    expect(navState.product).not.toHaveProperty('numbers'); // the board stays out of the browser history
    const balance = await t.services.db('voucher_balances').where({ user_id: user.id, infoproduct_id: pid }).first('balance');
    expect(balance.balance).toBe(3);
    expect((await t.services.db('payments').where({ id: payment.id }).first('status')).status).toBe('approved');

    if (!fs.existsSync(NUMBERS_PAGE)) return; // the number board is another screen's work
    await page.getByText('Você pode escolher 3 números agora').waitFor();
    for (const n of [5, 50, 95])
      await page.getByRole('gridcell', { name: `${String(n).padStart(2, '0')}: Disponível`, exact: true }).click();
    await page.getByText('Selecionados: 3').waitFor();
    await page.getByRole('region', { name: 'Sua seleção' }).getByRole('button', { name: 'CONFIRMAR' }).click();
    const confirm = await settled(dialog('Confirmar números usando vouchers'));
    await confirm.getByRole('button', { name: 'CONFIRMAR' }).click();
    await page.getByText('Números confirmados com sucesso! Boa sorte').waitFor();
    await page.getByText('Você pode escolher 0 números agora').waitFor();
    // No status alert of the purchase came along to /numeros.
    await expect(page.getByRole('dialog').filter({ hasText: 'Status:' }).count()).resolves.toBe(0);
    // The three numbers are marked as the buyer's.
    for (const n of ['05', '50', '95']) await page.getByRole('gridcell', { name: `${n}: Seu número`, exact: true }).waitFor();
    await page.getByText('Seus números neste sorteio:').waitFor();
    const sold = await t.services
      .db('draw_numbers')
      .where({ draw_id: openDraw.id, owner_user_id: user.id })
      .orderBy('n')
      .select('n', 'status');
    expect(sold).toEqual([
      { n: 5, status: 'sold' },
      { n: 50, status: 'sold' },
      { n: 95, status: 'sold' },
    ]);
  }, 150_000);

  it('a price changed since the page loaded: the new total is shown and the purchase goes on at it', async () => {
    const u = await createUser(t);
    await signInWithToken(context, u.token);
    await page.goto(`${t.url}/comprar/${FIRST.sku}`);
    await page.getByRole('heading', { level: 1, name: FIRST.title }).waitFor();

    // The e-book costs R$ 12,00 now; the page still says R$ 10,00.
    await t.services.db('infoproducts').where({ sku: FIRST.sku }).update({ price_cents: 1200 });
    await page.getByRole('button', { name: 'Comprar e-book' }).click();
    const qty = await settled(dialog('Quantos e-books deseja?'));
    await qty.getByRole('button', { name: 'Aumentar quantidade' }).click();
    await qty.getByRole('button', { name: /Pagar R\$\s?20,00 com PIX/ }).click();

    const warning = dialog('Não foi possível iniciar o pagamento agora.');
    await warning.getByText('O preço mudou. Confira o novo valor e tente de novo.').waitFor();
    await expect(warning.innerText()).resolves.toMatch(/Novo total: R\$\s?24,00/);
    await dialog('Pagamento via PIX').waitFor({ state: 'hidden' });
    await (await settled(warning)).getByRole('button', { name: 'Rever a compra' }).click();

    // Back in the quantity dialog at the new price.
    await (await settled(qty)).getByRole('button', { name: /Pagar R\$\s?24,00 com PIX/ }).click();
    await dialog('Pagamento via PIX').getByRole('img', { name: 'QR Code do PIX' }).waitFor();
    const payment = await t.services.db('payments').where({ user_id: u.user.id }).orderBy('id', 'desc').first();
    expect(payment).toMatchObject({ quantity: 2, amount_cents: 2400, status: 'pending' });

    // Cancelar closes the dialog and forgets the payment.
    await dialog('Pagamento via PIX').getByRole('button', { name: 'Cancelar' }).click();
    await dialog('Pagamento via PIX').waitFor({ state: 'hidden' });
    await t.services.db('infoproducts').where({ sku: FIRST.sku }).update({ price_cents: FIRST.price_cents });
  }, 120_000);
});
