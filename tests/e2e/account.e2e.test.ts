/**
 * Browser test of the customer area (account spec §2-§4): a purchase of 2 e-books approved, 2
 * numbers picked, then /conta lists them as PAGO with 'Baixar e-book' (a real PDF, saved from the same tab), the row opens
 * /me/draw/{id} with both numbers marked, and the coupon card shows the credit; a held number
 * paid from /conta with 'Gerar PIX'; the data export; the admin's draw settings. Phone-sized
 * screen, real API serving the built SPA (web/dist), demo catalogue. Screenshots of /conta and
 * the draw detail go to tests/artifacts/screenshots (git-ignored) for a person to look at.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { createUser, type TestContext } from '../helpers/context';
import { describeBrowser, settled, signInWithToken, useBrowser } from '../helpers/browser';
import { eventually } from '../helpers/eventually';
import { DEMO_PRODUCTS, seedDemo } from '../../seeds/demo';

const PRODUCT = DEMO_PRODUCTS[0]; // EBOOK-GUIA-LOTOMANIA: R$ 10,00 per number
const SHOTS = path.resolve(__dirname, '../artifacts/screenshots');

describeBrowser('customer area in the browser', () => {
  const session = useBrowser({
    setup: async (app) => {
      await seedDemo(app.services.db);
    },
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  let t: TestContext;
  let context: BrowserContext;
  let page: Page;
  beforeEach(() => ({ t, context, page } = session));

  const dialog = (name: string) => page.getByRole('dialog').filter({ hasText: name });
  const pad3 = (n: number) => String(n).padStart(3, '0');
  const pad2 = (n: number) => String(n).padStart(2, '0');
  /** The participation card of a draw (phones show cards, not the table). */
  const card = (drawId: number) => page.getByRole('article', { name: `Sorteio #${pad3(drawId)}`, exact: true });

  async function openDrawOf(sku: string): Promise<number> {
    const p = await t.services.db('infoproducts').where({ sku }).first('id');
    const d = await t.services.db('draws').where({ infoproduct_id: p.id, status: 'open' }).first('id');
    return d.id;
  }

  async function shot(name: string) {
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  }

  it('buys 2 e-books, picks 2 numbers, then /conta shows them paid, the e-book, the draw detail and the credit', async () => {
    const { user, token } = await createUser(t, { name: 'Joana Pereira' });
    await signInWithToken(context, token);
    const drawId = await openDrawOf(PRODUCT.sku);

    // --- buy 2 e-books ---
    await page.goto(`${t.url}/comprar/${PRODUCT.sku}`);
    await page.getByRole('button', { name: 'Comprar e-book' }).click();
    const qty = await settled(dialog('Quantos e-books deseja?'));
    await qty.getByRole('button', { name: 'Aumentar quantidade' }).click();
    await qty.getByRole('button', { name: /Pagar R\$\s?20,00 com PIX/ }).click();
    await dialog('Pagamento via PIX').getByRole('img', { name: 'QR Code do PIX' }).waitFor();
    const payment = await t.services.db('payments').where({ user_id: user.id }).orderBy('id', 'desc').first();
    expect(payment).toMatchObject({ status: 'pending', quantity: 2, amount_cents: 2000 });

    // --- approved at the provider: the purchase flow lands on /numeros ---
    await t.services.payments.approveSandbox(payment.id, { via: 'cli' });
    await page.waitForURL(`${t.url}/numeros`, { timeout: 20_000 });
    await page.getByText('Você pode escolher 2 números agora').waitFor();
    for (const n of [7, 42]) await page.getByRole('gridcell', { name: `${pad2(n)}: Disponível`, exact: true }).click();
    await page.getByRole('region', { name: 'Sua seleção' }).getByRole('button', { name: 'CONFIRMAR' }).click();
    await (await settled(dialog('Confirmar números usando vouchers'))).getByRole('button', { name: 'CONFIRMAR' }).click();
    await page.getByText('Números confirmados com sucesso! Boa sorte').waitFor();

    // --- /conta: one card for the draw, both numbers, PAGO, ABERTO ---
    await page.goto(`${t.url}/conta`);
    const row = card(drawId);
    await row.waitFor();
    await expect(row.getByRole('list', { name: 'Números' }).innerText()).resolves.toMatch(/07\s+42/);
    await expect(row.getByText('PAGO', { exact: true }).isVisible()).resolves.toBe(true);
    await expect(row.getByText('ABERTO', { exact: true }).isVisible()).resolves.toBe(true);
    // No vouchers left: nothing to choose, nothing to pay.
    await expect(row.getByRole('button', { name: /Escolher/ }).count()).resolves.toBe(0);
    await expect(row.getByRole('button', { name: /Gerar PIX/ }).count()).resolves.toBe(0);

    // --- the coupon card shows the credit of the paid purchase (100% cashback of R$ 20,00) ---
    const coupon = page.locator('.coupon-card');
    await expect(eventually(async () => /R\$\s20,00/.test(await coupon.innerText()), 'coupon credit shown')).resolves.toBe(true);
    await expect(coupon.locator('.coupon-valid').innerText()).resolves.toMatch(
      /^Até \d{2}\/\d{2}\/\d{4} \(180 dias após a sua última compra paga\)\.$/,
    );
    await expect(coupon.getByText('Na loja parceira', { exact: false }).isVisible()).resolves.toBe(true);
    const couponCode = await coupon.locator('.coupon-code').innerText();
    expect(couponCode).toMatch(/\S{6,}/);
    await coupon.getByRole('button', { name: 'Copiar código do cupom' }).click();
    await page.getByText('Código do cupom copiado!').waitFor();
    await expect(page.evaluate<string>('navigator.clipboard.readText()')).resolves.toBe(couponCode);
    await shot('conta-phone');

    // --- 'Baixar e-book' downloads the PDF from this tab: no other page opens (issue 26) ---
    const pagesBefore = context.pages().length;
    const downloadPromise = page.waitForEvent('download');
    await row.getByRole('button', { name: 'Baixar e-book' }).click();
    const download = await downloadPromise;
    expect(download.suggestedFilename()).toMatch(/\.pdf$/);
    const pdf = fs.readFileSync((await download.path())!);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(context.pages().length).toBe(pagesBefore);

    // --- the draw closes (sold out or closed by an administrator): the row leads to the detail ---
    await t.services.db('draws').where({ id: drawId }).update({ status: 'closed', closed_at: t.services.db.fn.now() });
    await page.reload();
    await card(drawId).getByText('FECHADO', { exact: true }).waitFor();
    await card(drawId).click();
    await page.waitForURL(`${t.url}/me/draw/${drawId}`);
    await page.getByRole('heading', { level: 1, name: `Detalhes do Sorteio #${pad3(drawId)}` }).waitFor();
    const board = page.getByRole('grid');
    await expect(board.getByRole('gridcell').count()).resolves.toBe(100);
    for (const n of [7, 42]) {
      await expect(board.getByRole('gridcell', { name: `${pad2(n)}: Seu número` }).count()).resolves.toBe(1);
    }
    await expect(board.locator('.number-cell--mine').count()).resolves.toBe(2);
    await expect(page.getByRole('list', { name: 'Seus números' }).innerText()).resolves.toMatch(/07\s+42/);
    for (const legend of ['Seu número', 'Indisponível', 'Reservado', 'Vencedor']) {
      await expect(page.getByRole('list', { name: 'Legenda' }).getByText(legend, { exact: true }).isVisible()).resolves.toBe(true);
    }
    await expect(page.getByText('FECHADO', { exact: true }).isVisible()).resolves.toBe(true);
    await expect(page.getByText('Número vencedor: aguardando sorteio').isVisible()).resolves.toBe(true);
    // The prize is known (issue 26): its amount, not "será indicado em breve"; no claim for a draw not won.
    await expect(page.locator('.prize-card .prize-amount-value').innerText()).resolves.toMatch(/^R\$\s500,00$/);
    await expect(page.getByText('O prêmio do sorteio será indicado em breve').count()).resolves.toBe(0);
    await shot('draw-detail-phone');
  }, 180_000);

  it('a held number is paid from /conta: Gerar PIX, the PIX dialog, approval, PAGO', async () => {
    const { user, token } = await createUser(t);
    await signInWithToken(context, token);
    const drawId = await openDrawOf(DEMO_PRODUCTS[1].sku);
    const held = await t.api('POST', '/api/reservations', { token, body: { numbers: [11], draw_id: drawId } });
    expect(held.status).toBe(201);

    await page.goto(`${t.url}/conta`);
    const row = card(drawId);
    await row.getByText('PENDENTE', { exact: true }).waitFor();
    await row.getByRole('button', { name: 'Gerar PIX' }).click();
    const pix = dialog('Pagamento via PIX');
    await pix.getByRole('img', { name: 'QR Code do PIX' }).waitFor();
    const code = await pix.getByRole('textbox', { name: 'Código PIX copia e cola' }).inputValue();
    expect(code).toMatch(/^000201/);
    const payment = await t.services.db('payments').where({ user_id: user.id, reservation_id: held.body.id }).first();
    expect(payment).toMatchObject({ status: 'pending', kind: 'reservation', qr_code: code });

    // Closing and asking again reuses the same payment (no second charge).
    await pix.getByRole('button', { name: 'Cancelar' }).click();
    await pix.waitFor({ state: 'hidden' });
    await row.getByRole('button', { name: 'Gerar PIX' }).click();
    await expect(
      eventually(
        async () =>
          (await pix
            .getByRole('textbox', { name: 'Código PIX copia e cola' })
            .inputValue()
            .catch(() => '')) === code,
        'same code',
      ),
    ).resolves.toBe(true);
    await expect(
      t.services
        .db('payments')
        .where({ user_id: user.id, reservation_id: held.body.id })
        .count({ c: '*' })
        .first()
        .then((r) => Number(r?.c)),
    ).resolves.toBe(1);

    await t.services.payments.approveSandbox(payment.id, { via: 'cli' });
    await page.getByText('Pagamento aprovado! Seus números estão garantidos.').waitFor({ timeout: 15_000 });
    await pix.waitFor({ state: 'hidden' });
    await row.getByText('PAGO', { exact: true }).waitFor();
    await expect(row.getByRole('button', { name: 'Gerar PIX' }).count()).resolves.toBe(0);
    // The approval syncs the coupon card: the paid amount comes back as credit (100% cashback).
    const credit = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }).format(payment.amount_cents / 100);
    await expect(
      eventually(async () => (await page.locator('.coupon-card .coupon-value').innerText()) === credit, `coupon shows ${credit}`),
    ).resolves.toBe(true);
  }, 120_000);

  it('a hold that lapsed meanwhile: Gerar PIX says the reservation is no longer active', async () => {
    const { token } = await createUser(t);
    await signInWithToken(context, token);
    const drawId = await openDrawOf(DEMO_PRODUCTS[1].sku);
    const held = await t.api('POST', '/api/reservations', { token, body: { numbers: [23], draw_id: drawId } });
    expect(held.status).toBe(201);

    await page.goto(`${t.url}/conta`);
    const row = card(drawId);
    await row.getByRole('button', { name: 'Gerar PIX' }).waitFor();
    // The hold runs out while the page is open (the expiry job releases it).
    await t.services
      .db('reservations')
      .where({ id: held.body.id })
      .update({ expires_at: t.services.db.raw(`now() - interval '1 minute'`) });
    await expect(t.services.reservations.expire(held.body.id)).resolves.toBe(true);
    await row.getByRole('button', { name: 'Gerar PIX' }).click();
    await dialog('Falha ao gerar PIX: sua reserva não está ativa. Volte ao sorteio para reservar novamente.').waitFor();
  }, 90_000);

  it('vouchers left in an open draw (granted, so paid): a PAGO row with its e-book, whose Escolher opens /numeros on that draw', async () => {
    const u = await createUser(t);
    await t.services.payments.grantVouchers({ user: u.email, product: DEMO_PRODUCTS[2].sku, quantity: '2' }, { via: 'cli' });
    await signInWithToken(context, u.token);
    const drawId = await openDrawOf(DEMO_PRODUCTS[2].sku);

    await page.goto(`${t.url}/conta`);
    const row = card(drawId);
    await row.getByText('2 números para escolher').waitFor();
    await expect(row.getByText('PAGO', { exact: true }).isVisible()).resolves.toBe(true);
    await expect(row.getByText('PENDENTE', { exact: true }).count()).resolves.toBe(0);
    await row.getByRole('button', { name: 'Baixar e-book' }).waitFor();
    await row.getByRole('button', { name: 'Escolher' }).click();
    await page.waitForURL(`${t.url}/numeros`);
    await expect(page.evaluate<{ drawId: number }>('window.history.state.usr')).resolves.toMatchObject({ drawId });
    await page.getByText('Você pode escolher 2 números agora').waitFor();
  }, 90_000);

  it('a new customer: no participations, and "Baixar meus dados" downloads the JSON export', async () => {
    const u = await createUser(t, { name: 'Carla Nova' });
    await signInWithToken(context, u.token);
    await page.goto(`${t.url}/conta`);
    await page.getByText('Nenhuma participação encontrada.').waitFor();
    const downloadPromise = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Baixar meus dados' }).click();
    const download = await downloadPromise;
    expect(download.suggestedFilename()).toBe('cotaverde-meus-dados.json');
    const data = JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
    expect(JSON.stringify(data)).toContain(u.email);
  }, 90_000);

  it('an administrator sees the draw settings on /conta and saves them', async () => {
    const admin = await createUser(t, { admin: true });
    await signInWithToken(context, admin.token);
    await page.goto(`${t.url}/conta`);
    const settings = page.locator('.account-card').filter({ hasText: 'Configurações do sorteio' });
    const banner = settings.getByLabel('Frase do banner');
    await banner.waitFor();
    await banner.fill('Concorra com cada e-book comprado!');
    await settings.getByLabel('Máximo de números por seleção').fill('7');
    await settings.getByRole('button', { name: 'Salvar configurações' }).click();
    await settings.getByText('Configurações salvas com sucesso.').waitFor();
    const config = await t.api('GET', '/api/config');
    expect(config.body).toMatchObject({ banner_title: 'Concorra com cada e-book comprado!', max_numbers_per_selection: 7 });
    // The message clears after 4 s (account spec §9).
    await settings.getByText('Configurações salvas com sucesso.').waitFor({ state: 'detached', timeout: 10_000 });
    await t.api('POST', '/api/config', {
      token: admin.token,
      body: { banner_title: config.body.banner_title, max_numbers_per_selection: 5 },
    });
  }, 90_000);
});
