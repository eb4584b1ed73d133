/**
 * Browser test of the customer registry and the customers with active balance, as an
 * admin: the table lists and searches, 'Novo' creates an account and shows 'Senha padrão: …' once,
 * an edit of the balance asks for the reason, 'Atribuir números' picks two free numbers on the
 * legend grid and sells them, and /admin/clientes lists the balance. Desktop and phone
 * screenshots go to docs/screenshots/admin/ for a person to look at.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { createUser, type TestContext } from '../helpers/context';
import type { Locator } from 'playwright-core';
import { describeBrowser, signInWithToken, useBrowser } from '../helpers/browser';
import { eventually } from '../helpers/eventually';
import { makeDraw, sellDirectly } from '../draws/fixtures';
import { pageAtRest } from '../helpers/screenshots';

const SHOTS = path.resolve(__dirname, '../../docs/screenshots/admin');
const DESKTOP = { width: 1280, height: 860 };

// Each page state and dialog also runs axe (tests/helpers/a11y.ts): slower than jest's default 60 s on a busy machine.
jest.setTimeout(180_000);
describeBrowser('admin customer registry in the browser', () => {
  const session = useBrowser();
  let t: TestContext;
  let context: BrowserContext;
  let page: Page;
  beforeEach(() => ({ t, context, page } = session));

  /** The dialog, once its opening zoom is over (by its class: a blinking caret is an animation too). */
  async function settled(dialog: Locator): Promise<Locator> {
    await dialog.waitFor();
    await eventually(async () => !/-(appear|enter)\b/.test((await dialog.getAttribute('class')) ?? '') || null, 'the dialog to open');
    await pageAtRest(page);
    return dialog;
  }

  async function shot(name: string) {
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true, animations: 'disabled' });
  }

  it('lists, creates with a temporary password, edits the balance with a reason, assigns two numbers', async () => {
    const admin = await createUser(t, { admin: true, name: 'Admin Cota' });
    const ana = await createUser(t, { name: 'Ana Souza' });
    await createUser(t, { name: 'Bruno Lima' });
    const draw = await makeDraw(t, { total_numbers: 100, max_per_user: 0 });
    await sellDirectly(t, draw.id, admin.user.id, [3, 4, 50]);
    await signInWithToken(context, admin.token);
    await page.setViewportSize(DESKTOP);

    // Nobody has a balance yet.
    await page.goto(`${t.url}/admin/clientes`);
    await page.getByText('Nenhum cliente com saldo ativo.').waitFor();

    await page.goto(`${t.url}/admin/AdminClientesUser`);
    await page.getByRole('heading', { name: 'Cadastro de Clientes' }).waitFor();
    await page.getByRole('cell', { name: 'Ana Souza', exact: true }).waitFor();
    await shot('admin-users-desktop');

    // Search by name.
    await page.getByRole('searchbox', { name: 'Buscar por nome, e-mail, celular ou cupom' }).fill('bruno');
    await page.getByRole('button', { name: 'Buscar' }).click();
    await eventually(
      async () => (await page.getByRole('cell', { name: 'Ana Souza', exact: true }).count()) === 0,
      'the search to drop Ana',
    );
    await page.getByRole('cell', { name: 'Bruno Lima', exact: true }).waitFor();
    await page.getByRole('searchbox', { name: 'Buscar por nome, e-mail, celular ou cupom' }).fill('');
    await page.getByRole('button', { name: 'Buscar' }).click();
    await page.getByRole('cell', { name: 'Ana Souza', exact: true }).waitFor();

    // Create.
    await page.getByRole('button', { name: 'Novo' }).click();
    const dlg = await settled(page.getByRole('dialog').filter({ hasText: 'Novo usuário' }));
    await dlg.getByLabel('Nome').fill('Carla Nova');
    await dlg.getByLabel('E-mail').fill('carla.nova@example.com');
    await dlg.getByLabel('Celular').fill('41988887777');
    await dlg.getByRole('button', { name: 'Salvar' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Senha padrão:' });
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/Salvo com sucesso\. Senha padrão: [A-Za-z0-9_-]{12}/);
    await page.getByRole('cell', { name: 'Carla Nova', exact: true }).waitFor();
    await shot('admin-users-created-desktop');

    // Edit Ana's balance: the reason is asked for.
    const anaRow = page.getByRole('row').filter({ hasText: 'Ana Souza' });
    await anaRow.getByRole('button', { name: 'Editar' }).click();
    const edit = await settled(page.getByRole('dialog').filter({ hasText: 'Editar usuário' }));
    await edit.getByLabel('Saldo (R$)').fill('25,50');
    await edit.getByRole('button', { name: 'Salvar' }).click();
    await edit.getByText('Informe o motivo do ajuste de saldo.').waitFor();
    await edit.getByLabel('Motivo do ajuste de saldo').fill('Cortesia de atendimento');
    await shot('admin-users-edit-desktop');
    await edit.getByRole('button', { name: 'Salvar' }).click();
    await anaRow.getByText('R$ 25,50').waitFor();

    // Assign two numbers on the grid.
    await anaRow.getByRole('button', { name: 'Atribuir números' }).click();
    const assign = await settled(page.getByRole('dialog').filter({ hasText: 'Atribuir números' }));
    await assign.getByRole('gridcell', { name: '03: Indisponível' }).waitFor();
    await assign.getByRole('gridcell', { name: '07: Disponível' }).click();
    await assign.getByRole('gridcell', { name: '08: Disponível' }).click();
    expect(await assign.getByLabel('Números (separados por vírgula ou espaço)').inputValue()).toBe('07, 08');
    await shot('admin-users-assign-desktop');
    await assign.getByRole('button', { name: 'Atribuir' }).click();
    await page.getByText('Números atribuídos com sucesso.').waitFor();
    await assign.getByRole('gridcell', { name: '07: Indisponível' }).waitFor();
    const owned = await t.services.db('draw_numbers').where({ draw_id: draw.id, owner_user_id: ana.user.id }).orderBy('n').pluck('n');
    expect(owned).toEqual([7, 8]);
    // A taken number: the error is shown.
    await assign.getByLabel('Números (separados por vírgula ou espaço)').fill('3');
    await assign.getByRole('button', { name: 'Atribuir' }).click();
    await assign.getByRole('alert').filter({ hasText: 'Estes números não estão disponíveis: 03.' }).waitFor();
    await assign.getByRole('button', { name: 'Fechar' }).last().click();

    // Phone.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.getByRole('cell', { name: 'Ana Souza', exact: true }).waitFor();
    await shot('admin-users-phone');
    await page.getByRole('row').filter({ hasText: 'Ana Souza' }).getByRole('button', { name: 'Atribuir números' }).click();
    await settled(page.getByRole('dialog').filter({ hasText: 'Atribuir números' }));
    await page.getByRole('gridcell', { name: '07: Indisponível' }).waitFor();
    await shot('admin-users-assign-phone');

    // Customers with active balance.
    await page.setViewportSize(DESKTOP);
    await page.goto(`${t.url}/admin/clientes`);
    await page.getByRole('heading', { name: 'Clientes com saldo ativo' }).waitFor();
    const row = page.getByRole('row').filter({ hasText: 'Ana Souza' });
    await row.getByText('R$ 25,50').waitFor();
    await shot('active-clients-desktop');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    // Phones show one card per customer, the balance beside the name.
    const card = page.getByRole('listitem', { name: 'Ana Souza' });
    await card.getByText('R$ 25,50').waitFor();
    await shot('active-clients-phone');
  });
});
