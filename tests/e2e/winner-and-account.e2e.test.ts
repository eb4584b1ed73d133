/**
 * Browser test of issue 26's winner and /conta parts, at 360, 390 and 1280 px with axe: an admin
 * sets the store's prize contact in the console; a buyer's paid e-book wins its draw; /me/draw and
 * /conta show the prize (name, amount, link), the deadline to claim it (90 days from the recorded
 * result, computed on the server) and the contact; /conta lists 'Minhas participações' before the
 * coupon card; the receipt shows the PIX end-to-end id with a copy button; 'Baixar e-book' saves
 * the PDF from the same tab. Screenshots in docs/screenshots/winner/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { createUser, type TestContext } from '../helpers/context';
import { describeBrowser, signInWithToken, useBrowser } from '../helpers/browser';
import { expectAccessible } from '../helpers/a11y';
import { saveFullPageShot } from '../helpers/screenshots';
import { REAL_CONTESTS } from '../helpers/fake-lottery';
import { sellDirectly } from '../draws/fixtures';
import { buyEbooks } from '../payments/fixtures';
import { DEMO_PRODUCTS, seedDemo } from '../../seeds/demo';
import { claimDeadline, deadlineText } from '../../src/shared/prize';
import { formatReceiptAmount } from '../../src/shared/receipt';

const SHOTS = path.resolve(__dirname, '../../docs/screenshots/winner');
const PRODUCT = DEMO_PRODUCTS[0];
const WIDTHS = [360, 390, 1280] as const;
const pad3 = (n: number) => String(n).padStart(3, '0');
const pad2 = (n: number) => String(n).padStart(2, '0');

describeBrowser('the winner and /conta (issue 26)', () => {
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

  const size = (width: number) => page.setViewportSize({ width, height: width > 800 ? 900 : width === 360 ? 740 : 844 });

  it('the admin sets the prize contact; the winner sees prize, amount, deadline and contact on /me/draw and /conta; participations first; the receipt has the E2E id; the e-book downloads in place', async () => {
    // --- the console: the store's prize contact ---
    const admin = await createUser(t, { admin: true, name: 'Ana Admin' });
    await signInWithToken(context, admin.token);
    await size(1280);
    await page.goto(`${t.url}/admin`);
    const card = page.locator('.prize-contact-card');
    await card.getByLabel('WhatsApp (com DDD)').fill('(41) 99876-5432');
    await card.getByLabel('E-mail').fill('premios@cotaverde.test');
    await card.getByRole('button', { name: 'SALVAR CONTATO' }).click();
    await card.getByText('Contato do prêmio salvo.').waitFor();
    await card.getByText('Atual: +55 (41) 99876-5432').waitFor();
    await expectAccessible(page, 'console: contato do prêmio');
    fs.mkdirSync(SHOTS, { recursive: true });
    await card.screenshot({ path: path.join(SHOTS, 'console-contato-premio-1280.png'), animations: 'disabled' });
    await size(390);
    await card.scrollIntoViewIfNeeded();
    await expectAccessible(page, 'console: contato do prêmio (telefone)');
    await card.screenshot({ path: path.join(SHOTS, 'console-contato-premio-390.png'), animations: 'disabled' });
    await size(1280);
    // A bad number: the server's message is shown and nothing changes.
    await card.getByLabel('WhatsApp (com DDD)').fill('123');
    await card.getByRole('button', { name: 'SALVAR CONTATO' }).click();
    await card.getByText(/WhatsApp com DDD/).waitFor();
    expect((await t.api('GET', '/api/admin/settings/prize-contact', { token: admin.token })).body).toEqual({
      whatsapp: '5541998765432',
      email: 'premios@cotaverde.test',
    });

    // --- a buyer pays an e-book (sandbox PIX) and her number wins the draw ---
    const winner = await createUser(t, { name: 'Joana Pereira' });
    const product = await t.services.db('infoproducts').where({ sku: PRODUCT.sku }).first('id');
    const draw = await t.services.db('draws').where({ infoproduct_id: product.id, status: 'open' }).first();
    const bought = await buyEbooks(t, winner.token, product.id, 1, PRODUCT.price_cents);
    await t.services.payments.approveSandbox(bought.paymentId, { via: 'cli' });
    const paid = await t.services.db('payments').where({ id: bought.paymentId }).first();
    expect(paid.pix_e2e_id).toMatch(/^E\d{20}[0-9A-Za-z]{11}$/);
    const numbers = REAL_CONTESTS['2650'].map(Number);
    const winning = numbers[19];
    await sellDirectly(t, draw.id, winner.user.id, [winning]);
    const drawnAt = new Date(Date.now() - 86_400_000);
    await t.services
      .db('draws')
      .where({ id: draw.id })
      .update({ status: 'closed', closed_at: new Date(drawnAt.getTime() - 3600_000) });
    const out = await t.services.results.record(
      { contest_number: 2650, numbers, drawn_at: drawnAt },
      { actorUserId: null, actor: 'cli', source: 'cli' },
    );
    expect(out.decided.find((d) => d.draw_id === draw.id)).toMatchObject({ winner_user_id: winner.user.id, winning_number: winning });
    expect(
      (
        await t.api('PATCH', `/api/admin/winners/${draw.id}`, {
          token: admin.token,
          body: { product_name: 'Kit Leitura Premium', product_link: 'https://loja.example/kit' },
        })
      ).status,
    ).toBe(200);
    const decided = await t.services.db('draws').where({ id: draw.id }).first();
    const deadline = deadlineText(claimDeadline(decided.realized_at));
    const amount = formatReceiptAmount(decided.prize_cents);

    // --- the winner's pages at every width ---
    const phone = await session.browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'pt-BR' });
    await phone.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
    await signInWithToken(phone, winner.token);
    page = await phone.newPage();
    try {
      for (const width of WIDTHS) {
        await size(width);
        // /me/draw: the prize, until when and how to claim it, the contact.
        await page.goto(`${t.url}/me/draw/${draw.id}`);
        const prize = page.locator('.prize-card');
        await prize.getByText('Seu prêmio', { exact: true }).waitFor();
        await prize.getByRole('link', { name: 'Kit Leitura Premium' }).waitFor();
        expect(await prize.getByRole('link', { name: 'Kit Leitura Premium' }).getAttribute('href')).toBe('https://loja.example/kit');
        expect((await prize.locator('.prize-amount-value').innerText()).replace(/\s/g, ' ')).toBe(amount.replace(/\s/g, ' '));
        await prize.getByText(deadline).waitFor();
        await prize.getByText(/faltam (89|90) dias/).waitFor();
        await prize.getByText(/documento de identificação com foto/).waitFor();
        const wa = prize.getByRole('link', { name: /WhatsApp \+55 \(41\) 99876-5432/ });
        expect(await wa.getAttribute('href')).toMatch(/^https:\/\/wa\.me\/5541998765432\?text=/);
        expect(await prize.getByRole('link', { name: 'premios@cotaverde.test' }).getAttribute('href')).toMatch(
          /^mailto:premios@cotaverde\.test/,
        );
        // The contact buttons stay inside the card's padding at every width.
        const cardBox = (await prize.boundingBox())!;
        for (const link of [wa, prize.getByRole('link', { name: 'premios@cotaverde.test' })]) {
          const b = (await link.boundingBox())!;
          expect(b.x + b.width).toBeLessThanOrEqual(cardBox.x + cardBox.width - 12);
        }
        // The WhatsApp number never breaks inside itself either.
        expect((await wa.locator('.prize-nowrap').boundingBox())!.height).toBeLessThan(30);
        // The amount never breaks inside itself.
        const amountBox = await prize.locator('.prize-amount-value').boundingBox();
        expect(amountBox!.height).toBeLessThan(40);
        await saveFullPageShot(page, SHOTS, `me-draw-vencedor-${width}`);

        // /conta: the prize first, then 'Minhas participações', then the coupon card.
        await page.goto(`${t.url}/conta`);
        const mine = page.getByRole('article', { name: `Prêmio do Sorteio #${pad3(draw.id)}` });
        await mine.getByText('Kit Leitura Premium').waitFor();
        await mine.getByText(deadline).waitFor();
        await mine.getByRole('link', { name: /WhatsApp \+55 \(41\) 99876-5432/ }).waitFor();
        await mine.getByRole('link', { name: 'premios@cotaverde.test' }).waitFor();
        await mine.getByText(`Número vencedor ${pad2(winning)}`).waitFor();
        const participations = page.getByText('Minhas participações', { exact: true }).first();
        await participations.waitFor();
        const coupon = page.locator('.account-slot--coupon');
        await coupon.locator('.ant-card').first().waitFor();
        const pBox = (await participations.boundingBox())!;
        const cBox = (await coupon.boundingBox())!;
        expect(pBox.y).toBeLessThan(cBox.y);
        const prizeBox = (await page.locator('.my-prizes-card').boundingBox())!;
        expect(prizeBox.y).toBeLessThan(pBox.y);

        // The receipt: the PIX end-to-end id, copied with one click.
        const receipt = page.locator(`details[data-payment-id="${bought.paymentId}"]`);
        await receipt.locator('summary').click();
        const proof = receipt.locator('.receipt-proof');
        await proof.getByText('ID da transação PIX (E2E)').waitFor();
        expect(await proof.locator('.receipt-proof-id').innerText()).toBe(paid.pix_e2e_id);
        await proof.getByRole('button', { name: 'Copiar ID da transação PIX (E2E)' }).click();
        await page.getByText('ID da transação copiado!').first().waitFor();
        await expect(page.evaluate<string>('navigator.clipboard.readText()')).resolves.toBe(paid.pix_e2e_id);
        await saveFullPageShot(page, SHOTS, `conta-vencedor-${width}`);
      }

      // --- 'Baixar e-book': the file arrives, no other page opens ---
      await size(390);
      await page.goto(`${t.url}/conta`);
      const row = page.getByRole('article', { name: `Sorteio #${pad3(draw.id)}`, exact: true });
      const button = row.getByRole('button', { name: 'Baixar e-book' });
      await button.waitFor();
      const before = phone.pages().length;
      const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
      expect(download.suggestedFilename()).toMatch(/\.pdf$/);
      const pdf = fs.readFileSync((await download.path())!);
      expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      expect(phone.pages().length).toBe(before);
      // The draw detail's button does the same.
      await page.goto(`${t.url}/me/draw/${draw.id}`);
      const [again] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Baixar e-book' }).click()]);
      expect(
        fs
          .readFileSync((await again.path())!)
          .subarray(0, 5)
          .toString('latin1'),
      ).toBe('%PDF-');
      expect(phone.pages().length).toBe(before);
    } finally {
      await phone.close();
    }
  }, 300_000);

  it('another buyer of the same kind of draw sees the prize but no claim, deadline or contact', async () => {
    const admin = await createUser(t, { admin: true });
    await t.api('PUT', '/api/admin/settings/prize-contact', {
      token: admin.token,
      body: { whatsapp: '41998765432', email: 'premios@cotaverde.test' },
    });
    const product = await t.services.db('infoproducts').where({ sku: DEMO_PRODUCTS[1].sku }).first('id');
    const draw = await t.services.db('draws').where({ infoproduct_id: product.id, status: 'open' }).first();
    const numbers = REAL_CONTESTS['2651'].map(Number);
    const winner = await createUser(t);
    const other = await createUser(t, { name: 'Otávio Lins' });
    await sellDirectly(t, draw.id, winner.user.id, [numbers[19]]);
    await sellDirectly(t, draw.id, other.user.id, [numbers[0]]);
    // After test 1's contest 2650 (a day ago): contests are recorded in order.
    const drawnAt = new Date(Date.now() - 6 * 3600_000);
    await t.services
      .db('draws')
      .where({ id: draw.id })
      .update({ status: 'closed', closed_at: new Date(drawnAt.getTime() - 3600_000) });
    await t.services.results.record(
      { contest_number: 2651, numbers, drawn_at: drawnAt },
      { actorUserId: null, actor: 'cli', source: 'cli' },
    );
    await signInWithToken(context, other.token);
    for (const width of WIDTHS) {
      await size(width);
      await page.goto(`${t.url}/me/draw/${draw.id}`);
      await page.getByText('NÃO CONTEMPLADO', { exact: true }).waitFor();
      const prize = page.locator('.prize-card');
      await prize.getByText('Prêmio', { exact: true }).waitFor();
      await prize.locator('.prize-amount-value').waitFor();
      await expect(prize.getByText(/Prazo para resgatar|WhatsApp|premios@/).count()).resolves.toBe(0);
      await saveFullPageShot(page, SHOTS, `me-draw-nao-contemplado-${width}`);
    }
    await page.goto(`${t.url}/conta`);
    await page.getByText('Minhas participações', { exact: true }).first().waitFor();
    await expect(page.locator('.my-prizes-card').count()).resolves.toBe(0);
  }, 180_000);
});
