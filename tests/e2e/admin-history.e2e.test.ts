import fs from 'node:fs';
import path from 'node:path';
import { createUser } from '../helpers/context';
import { describeBrowser, settled, signInWithToken, useBrowser } from '../helpers/browser';
import { makeDraw, makeProductWithDraw } from '../draws/fixtures';
import { drawnDraw, sell } from '../admin/history-fixtures';
import { writeAppConfig } from '../../src/platform/app-config';

/**
 * The admin's held raffles, active raffle buyers and winners pages in a real browser:
 * expand a draw's participants, switch the buyers' tabs and export the CSV, edit a winner's prize.
 * Screenshots (desktop 1280 and phone 390) go to docs/screenshots/admin/ for a person to look at.
 */
const SHOTS = path.resolve(__dirname, '../../docs/screenshots/admin');

describeBrowser('admin: held raffles, active buyers, winners', () => {
  const s = useBrowser();
  let adminToken = '';
  let drawnId = 0;

  beforeAll(async () => {
    const t = s.t;
    const admin = await createUser(t, { admin: true, name: 'Admin Cota Verde' });
    adminToken = admin.token;
    const people = await Promise.all(
      ['Mariana Albuquerque', 'João Pedro Silva', 'Ana Beatriz Costa', 'Carlos Eduardo Lima', 'Fernanda Rocha', 'Rafael Mendes'].map(
        (name) => createUser(t, { name }),
      ),
    );
    // The active draw of the main series, with buyers.
    const { product, draw } = await makeProductWithDraw(
      t,
      { price_cents: 500, title: 'Guia do Investidor' },
      { total_numbers: 100, max_per_user: 0, title: 'Guia do Investidor' },
    );
    await writeAppConfig(t.services.db, { main_infoproduct_id: product.id });
    await sell(t, draw.id, people[0].user.id, [3, 17, 42], { amountCents: 1500 });
    await sell(t, draw.id, people[1].user.id, [7, 8], { source: 'voucher' });
    await sell(t, draw.id, people[2].user.id, [55], { source: 'admin', amountCents: 0 });
    await sell(t, draw.id, people[3].user.id, [60, 61, 62, 63], { amountCents: 2000 });
    await sell(t, draw.id, people[4].user.id, [99], { amountCents: 500 });
    // Held raffles: drawn ones with winners, one closed waiting for its result.
    for (let i = 0; i < 3; i++) {
      const d = await drawnDraw(t, {
        winnerUserId: people[i].user.id,
        number: 10 + i,
        contest: 2640 + i,
        daysAgo: 20 - i * 7,
        draw: { title: 'Guia do Investidor' },
      });
      await sell(t, d.id, people[5].user.id, [50 + i, 70 + i], { amountCents: 1000 });
      await sell(t, d.id, people[3].user.id, [80 + i], { source: 'voucher' });
      drawnId = d.id;
    }
    await t.services
      .db('draws')
      .where({ id: drawnId - 2 })
      .update({ product_name: 'Kindle 11ª geração', product_link: 'https://loja.example.com/kindle', redeemed: true });
    const closed = await makeDraw(t, { status: 'closed', title: 'Guia do Investidor' });
    await sell(t, closed.id, people[4].user.id, [1, 2], { amountCents: 1000 });
    t.services.readCache.invalidateAll();
  });

  async function shot(name: string) {
    fs.mkdirSync(SHOTS, { recursive: true });
    await s.page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true, animations: 'disabled' });
  }

  for (const [device, viewport] of [
    ['desktop', { width: 1280, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    it(`held raffles on ${device}: the list, then a row's participants`, async () => {
      const { page, context, t } = s;
      await page.setViewportSize(viewport);
      await signInWithToken(context, adminToken);
      await page.goto(`${t.url}/admin/sorteios`);
      await page.getByRole('heading', { name: 'Sorteios realizados' }).waitFor();
      const row = page.locator('tr.ant-table-row').filter({ hasText: String(drawnId).padStart(3, '0') });
      await row.waitFor();
      await shot(`held-raffles-${device}`);
      await row.click();
      await page.getByText('Mariana Albuquerque').first().waitFor();
      await page.getByRole('list', { name: 'Números de Rafael Mendes' }).first().waitFor();
      const link = page.getByRole('link', { name: /Ver resultado/ }).first();
      expect(await link.getAttribute('href')).toMatch(/^\/resultado\/\d+$/);
      await shot(`held-raffles-participants-${device}`);
    }, 90_000);

    it(`active raffle buyers on ${device}: by buyer, search, by number, CSV`, async () => {
      const { page, context, t } = s;
      await page.setViewportSize(viewport);
      await signInWithToken(context, adminToken);
      await page.goto(`${t.url}/admin/sorteiosAtivos`);
      await page.getByRole('heading', { name: 'Sorteio Ativo — Compradores' }).waitFor();
      await page.getByText('Mariana Albuquerque').waitFor();
      await shot(`open-buyers-${device}`);

      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Exportar CSV' }).click();
      const file = await download;
      expect(file.suggestedFilename()).toMatch(/^compradores-sorteio-\d{3,}\.csv$/);
      const bytes = fs.readFileSync(await file.path());
      expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      const text = bytes.toString('utf8').slice(1);
      expect(text.split('\r\n')[0]).toBe('Nome;E-mail;Telefone;Quantidade;Números;Total (R$)');
      expect(text).toContain('Mariana Albuquerque;');
      expect(text).toContain(';3;03 17 42;15,00');

      await page.getByRole('searchbox', { name: 'Buscar compradores' }).fill('joao');
      await page.locator('tr.ant-table-row').filter({ hasText: 'João Pedro Silva' }).waitFor();
      expect(await page.locator('tr.ant-table-row').count()).toBe(1);
      await page.getByRole('searchbox', { name: 'Buscar compradores' }).fill('');
      await page.getByRole('tab', { name: /Por número/ }).click();
      await page.getByRole('list', { name: 'Números do sorteio' }).waitFor();
      expect(await page.getByRole('listitem', { name: /^42: Mariana Albuquerque/ }).count()).toBe(1);
      await shot(`open-buyers-numbers-${device}`);
    }, 90_000);

    it(`winners on ${device}: list and the prize dialog`, async () => {
      const { page, context, t } = s;
      await page.setViewportSize(viewport);
      await signInWithToken(context, adminToken);
      await page.goto(`${t.url}/admin/vencedores`);
      await page.getByRole('heading', { name: 'Vencedores' }).waitFor();
      await page.getByText('RESGATADO', { exact: true }).filter({ visible: true }).first().waitFor();
      await shot(`winners-${device}`);
      await page.getByRole('button', { name: `Editar prêmio do sorteio ${String(drawnId).padStart(3, '0')}` }).click();
      const dialog = await settled(page.getByRole('dialog'));
      await dialog.getByLabel('Link do produto').fill('javascript:alert(1)');
      await dialog.getByRole('button', { name: 'Salvar' }).click();
      await dialog.getByText('O link do produto deve ser um endereço http:// ou https:// válido.').waitFor();
      await dialog.getByLabel('Nome do produto').fill(`Fone Bluetooth ${device}`);
      await dialog.getByLabel('Link do produto').fill('https://loja.example.com/fone');
      await shot(`winners-dialog-${device}`);
      await dialog.getByRole('switch').click();
      await dialog.getByRole('button', { name: 'Salvar' }).click();
      await dialog.waitFor({ state: 'hidden' });
      const row = await t.services.db('draws').where({ id: drawnId }).first();
      expect(row).toMatchObject({ product_name: `Fone Bluetooth ${device}`, product_link: 'https://loja.example.com/fone' });
      // Put it back for the other device's run.
      await t.services.db('draws').where({ id: drawnId }).update({ redeemed: false });
    }, 90_000);
  }
});
