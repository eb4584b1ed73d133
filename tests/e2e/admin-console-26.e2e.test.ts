/**
 * Browser test of issue 26's console, at 360, 390 and 1280 px with axe on every state (the
 * screenshots and `settled` dialogs run it): on the demo store whose main e-book costs R$ 10,00
 * (the config's fallback price R$ 1,00),
 * - ATUALIZAR with the price as shown keeps R$ 10,00 (RULES N9);
 * - the status chip of an open draw without sales asks before closing it;
 * - a decided draw offers no 'Excluir' (RULES D9);
 * - the payments page reaches every payment with one click on 'Todos', finds them by e-mail, CPF
 *   and payment id (RULES P14), and offers no 'Reembolsar' on a R$ 0,00 grant (RULES RF8).
 * Screenshots go to docs/screenshots/admin/console-26-*.png.
 */
import path from 'node:path';
import type { Page } from 'playwright-core';
import { createUser, type TestContext } from '../helpers/context';
import { describeBrowser, settled, signInWithToken, useBrowser } from '../helpers/browser';
import { makeDraw } from '../draws/fixtures';
import { buyEbooks } from '../payments/fixtures';
import { eventually } from '../helpers/eventually';
import { expectAccessible } from '../helpers/a11y';
import { saveFullPageShot } from '../helpers/screenshots';
import { readAppConfig } from '../../src/platform/app-config';
import { seedDemo } from '../../seeds/demo';

const SHOTS = path.resolve(__dirname, '../../docs/screenshots/admin');
const WIDTHS = [
  { name: '360', viewport: { width: 360, height: 740 } },
  { name: '390', viewport: { width: 390, height: 844 } },
  { name: '1280', viewport: { width: 1280, height: 900 } },
] as const;
const pad3 = (n: number) => String(n).padStart(3, '0');

jest.setTimeout(300_000);
describeBrowser('issue 26: the console in the browser', () => {
  const session = useBrowser({ setup: (app) => seedDemo(app.services.db).then(() => undefined) });
  let t: TestContext;
  let page: Page;
  beforeEach(() => ({ t, page } = session));

  const dialog = (name: string) => page.getByRole('dialog').filter({ hasText: name });
  const drawRow = (id: number) => page.locator(`.draws-card [data-draw-id="${id}"]`);
  /** A payment as the page shows it: a table row on wide screens, a card on phones. */
  const paymentItem = (id: number) => page.locator(`tr[data-row-key="${id}"], li[data-payment-id="${id}"]`);
  const mainDraw = async () => {
    const cfg = await readAppConfig(t.services.db);
    return t.services.db('draws').where({ infoproduct_id: cfg.main_infoproduct_id, status: 'open' }).first();
  };

  it('dashboard: ATUALIZAR keeps the price, closing asks first, a decided draw has no Excluir', async () => {
    const admin = await createUser(t, { admin: true, name: 'Admin Console' });
    await signInWithToken(page.context(), admin.token);
    const main = await mainDraw();
    expect(main.ticket_price_cents_override).toBeNull();
    // Newest first, so both are on the table's first page.
    const decided = await makeDraw(t, { title: 'Rodada já sorteada', total_numbers: 10, status: 'closed' });
    await t.services.db('draws').where({ id: decided.id }).update({ status: 'drawn', realized_at: new Date() });
    const empty = await makeDraw(t, { title: 'Rodada sem vendas', total_numbers: 10 });
    t.services.readCache.invalidateAll();

    for (const w of WIDTHS) {
      await page.setViewportSize(w.viewport);
      await page.goto(`${t.url}/admin`);
      const price = page.getByLabel('Preço do bilhete (centavos)');
      await eventually(async () => (await price.inputValue()) === '1000', 'the price field to show the main draw price');

      // ATUALIZAR as it was shown: the main e-book still costs R$ 10,00.
      await page.getByRole('button', { name: 'ATUALIZAR', exact: true }).click();
      await page.getByText('Configurações salvas com sucesso.').waitFor();
      expect((await t.services.db('draws').where({ id: main.id }).first()).ticket_price_cents_override).toBeNull();
      expect((await t.api('GET', '/api/config')).body).toMatchObject({ current_draw_id: main.id, ticket_price_cents: 1000 });
      expect((await t.api('GET', `/api/draws/${main.id}`)).body.ticket_price_cents).toBe(1000);

      // A decided draw: 'Editar' but no 'Excluir'; an open one offers both.
      await drawRow(decided.id)
        .getByRole('button', { name: `Editar sorteio #${pad3(decided.id)}` })
        .waitFor();
      expect(
        await drawRow(decided.id)
          .getByRole('button', { name: `Excluir sorteio #${pad3(decided.id)}` })
          .count(),
      ).toBe(0);
      await drawRow(empty.id)
        .getByRole('button', { name: `Excluir sorteio #${pad3(empty.id)}` })
        .waitFor();
      await saveFullPageShot(page, SHOTS, `console-26-dashboard-${w.name}`);

      // Closing an open draw without sales asks first; 'Cancelar' leaves it open.
      await drawRow(empty.id)
        .getByRole('button', { name: `Status ABERTO do sorteio #${pad3(empty.id)}: clique para fechar` })
        .click();
      const confirm = await settled(dialog(`Fechar o sorteio #${pad3(empty.id)}?`));
      await confirm.getByText('nenhum número vendido').waitFor();
      await page.screenshot({ path: path.join(SHOTS, `console-26-close-confirm-${w.name}.png`), animations: 'disabled' });
      await confirm.getByRole('button', { name: 'Cancelar' }).click();
      await confirm.waitFor({ state: 'hidden' });
      expect((await t.services.db('draws').where({ id: empty.id }).first()).status).toBe('open');
    }

    // Confirmed, it closes.
    await drawRow(empty.id)
      .getByRole('button', { name: `Status ABERTO do sorteio #${pad3(empty.id)}: clique para fechar` })
      .click();
    await (await settled(dialog(`Fechar o sorteio #${pad3(empty.id)}?`))).getByRole('button', { name: 'Fechar sorteio' }).click();
    await drawRow(empty.id)
      .getByRole('button', { name: `Status FECHADO do sorteio #${pad3(empty.id)}: clique para abrir` })
      .waitFor();
    expect((await t.services.db('draws').where({ id: empty.id }).first()).status).toBe('closed');
    expect(await t.services.db('audit_log').where({ action: 'draw.ticket_price' })).toHaveLength(0);
  });

  it('payments: Todos in one click, search by e-mail, CPF and id, no Reembolsar on a R$ 0,00 grant', async () => {
    const admin = await createUser(t, { admin: true, name: 'Admin Pagamentos' });
    const buyer = await createUser(t, { name: 'Helena Compradora', email: 'helena.compradora@exemplo.com.br' });
    await t.services.db('users').where({ id: buyer.user.id }).update({ cpf: '39053344705' });
    const cfg = await readAppConfig(t.services.db);
    const paid = await buyEbooks(t, buyer.token, cfg.main_infoproduct_id!, 1, 1000);
    await t.services.payments.approveSandbox(paid.paymentId, { via: 'cli' });
    const awarded = await createUser(t, { name: 'Igor Premiado', email: 'igor.premiado@exemplo.com.br' });
    const draw = await makeDraw(t, { title: 'Rodada de brindes', total_numbers: 10 });
    expect(
      (
        await t.api('POST', `/api/admin/users/${awarded.user.id}/assign-numbers`, {
          token: admin.token,
          body: { draw_id: draw.id, numbers: [3] },
        })
      ).status,
    ).toBe(200);
    const grant = await t.services.db('payments').where({ user_id: awarded.user.id, kind: 'admin' }).first();
    expect(grant.amount_cents).toBe(0);
    await signInWithToken(page.context(), admin.token);

    const search = async (q: string) => {
      const box = page.getByLabel('Buscar pagamentos');
      await box.fill(q);
      await box.press('Enter');
    };

    for (const w of WIDTHS) {
      await page.setViewportSize(w.viewport);
      await page.goto(`${t.url}/admin/pagamentos`);
      await page.getByRole('heading', { name: 'Pagamentos para revisar', level: 1 }).waitFor();
      // It opens on the flagged ones to review; every payment is one click away.
      await expect(page.getByRole('radio', { name: 'A revisar', exact: true }).isChecked()).resolves.toBe(true);
      await page
        .locator('.payments-view label')
        .filter({ hasText: /^Todos$/ })
        .click();
      await paymentItem(paid.paymentId).waitFor();
      await paymentItem(grant.id).waitFor();
      // A paid payment can be refunded; the R$ 0,00 grant cannot.
      await paymentItem(paid.paymentId).getByRole('button', { name: 'Reembolsar' }).waitFor();
      expect(await paymentItem(grant.id).getByRole('button', { name: 'Reembolsar' }).count()).toBe(0);
      await expect(paymentItem(grant.id).innerText()).resolves.toMatch(/R\$\s?0,00/);
      await saveFullPageShot(page, SHOTS, `console-26-payments-all-${w.name}`);

      // By e-mail, by CPF with its mask, by payment id: only that payment.
      for (const [q, id] of [
        ['helena.compradora@exemplo.com.br', paid.paymentId],
        ['390.533.447-05', paid.paymentId],
        [String(grant.id), grant.id],
      ] as const) {
        await search(q);
        await paymentItem(id).waitFor();
        await eventually(
          async () => (await page.locator('tr[data-row-key], li[data-payment-id]').count()) === 1,
          `only payment #${id} listed for "${q}"`,
        );
      }
      await expectAccessible(page, `console-26-payments-search-${w.name}`);
      await page.screenshot({ path: path.join(SHOTS, `console-26-payments-search-${w.name}.png`), animations: 'disabled' });
      await search('Ninguém com este nome');
      await page.getByText('Nenhum pagamento encontrado.').first().waitFor();
    }
  });
});
