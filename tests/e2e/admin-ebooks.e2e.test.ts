/**
 * Browser test of the admin console's e-books and payments to review: an admin creates
 * an e-book with its price typed in reais, a fake PDF is refused with the server's message, the
 * real PDF and a PNG cover are accepted (its draw is open, the store shows the cover); a flagged
 * payment is marked reviewed with a note. Desktop (1280) and phone (390) screenshots go to
 * docs/screenshots/admin/ for a person to look at.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { createUser, type TestContext } from '../helpers/context';
import { describeBrowser, PHONE_VIEWPORT, settled, signInWithToken, useBrowser } from '../helpers/browser';
import { eventually } from '../helpers/eventually';
import { seedDemo } from '../../seeds/demo';
import { buyEbooks, makeProductWithDraw } from '../payments/fixtures';
import { pageAtRest, saveFullPageShot } from '../helpers/screenshots';

// Uploads of this file go to temporary storage, not to the repository's storage/.
const STORAGE = fs.mkdtempSync(path.join(os.tmpdir(), 'cv-admin-e2e-'));
process.env.EBOOK_STORAGE_DIR = path.join(STORAGE, 'ebooks');
process.env.COVER_STORAGE_DIR = path.join(STORAGE, 'covers');
fs.mkdirSync(process.env.EBOOK_STORAGE_DIR);
const SHOTS = path.resolve(__dirname, '../../docs/screenshots/admin');
const PDF = fs.readFileSync(path.resolve(__dirname, '../../storage/ebooks/guia-lotomania.pdf'));
const DESKTOP = { width: 1280, height: 800 };

// Each page state and dialog also runs axe (tests/helpers/a11y.ts): slower than jest's default 60 s on a busy machine.
jest.setTimeout(180_000);
describeBrowser('admin console: e-books and payments to review', () => {
  const session = useBrowser({
    setup: async (app) => {
      await seedDemo(app.services.db);
    },
  });
  let t: TestContext;
  let page: Page;
  beforeEach(() => ({ t, page } = session));
  afterAll(() => fs.rmSync(STORAGE, { recursive: true, force: true }));

  const shot = (name: string, p: Page = page) => saveFullPageShot(p, SHOTS, name);

  /** A dialog taller than the screen: the whole dialog, scrolled through. */
  async function dialogShot(name: string, dialog: ReturnType<Page['getByRole']>) {
    fs.mkdirSync(SHOTS, { recursive: true });
    await pageAtRest(page);
    const viewport = page.viewportSize()!;
    const box = await dialog.locator('.ant-modal-container').first().boundingBox();
    await page.setViewportSize({ width: viewport.width, height: Math.max(viewport.height, Math.ceil((box?.height ?? 0) + 200)) });
    await pageAtRest(page);
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), animations: 'disabled' });
    await page.setViewportSize(viewport);
  }

  /** A real PNG (a screenshot of a green square), for the cover. */
  async function pngCover(p: Page): Promise<Buffer> {
    const other = await p.context().newPage();
    await other.setContent(
      '<div style="width:300px;height:400px;background:linear-gradient(#1b5e20,#66bb6a);color:#fff;font:bold 40px sans-serif;display:flex;align-items:center;justify-content:center">Capa</div>',
    );
    const png = await other.screenshot({ clip: { x: 0, y: 0, width: 300, height: 400 } });
    await other.close();
    return png;
  }

  it('creates an e-book in reais, refuses a fake PDF, takes the PDF and a PNG cover; desktop and phone', async () => {
    const admin = await createUser(t, { admin: true, name: 'Ana Admin' });
    await signInWithToken(page.context(), admin.token);
    await page.setViewportSize(DESKTOP);
    await page.goto(`${t.url}/admin/infoproducts`);
    await page.getByRole('heading', { name: 'Cadastro de Infoprodutos' }).waitFor();
    await page.getByRole('cell', { name: 'EBOOK-GUIA-LOTOMANIA' }).waitFor();
    await shot('infoproducts-desktop');

    await page.getByRole('button', { name: 'Novo e-book' }).click();
    const dialog = await settled(page.getByRole('dialog').filter({ hasText: 'Novo e-book' }));
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByText('Informe o SKU.').waitFor();
    await dialog.getByLabel('SKU', { exact: true }).fill('EBOOK-POUPADOR');
    await dialog.getByLabel('Título', { exact: true }).fill('Guia do Poupador');
    await dialog.getByLabel('Preço (R$)').fill('19,9x');
    await dialog.getByText('Use reais, por exemplo 19,90.').waitFor();
    await dialog.getByLabel('Preço (R$)').fill('19,90');
    await dialog.getByLabel('Prêmio (R$)').fill('1.500,00');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    const edit = page.getByRole('dialog').filter({ hasText: 'Editar e-book' });
    await edit.getByText('Nenhum PDF enviado').waitFor();
    const created = await t.services.db('infoproducts').where({ sku: 'EBOOK-POUPADOR' }).first();
    expect(created).toMatchObject({ title: 'Guia do Poupador', price_cents: 1990, default_prize_cents: 150000, active: true });
    expect(await t.services.db('draws').where({ infoproduct_id: created.id, status: 'open' })).toHaveLength(1);

    // A PNG named .pdf: the server's message is shown.
    const inputs = edit.locator('input[type="file"]');
    await inputs.nth(0).setInputFiles({ name: 'falso.pdf', mimeType: 'application/pdf', buffer: await pngCover(page) });
    await edit.getByText('O arquivo não é um PDF.').waitFor();
    await dialogShot('infoproducts-dialog-error-desktop', edit);
    await inputs.nth(0).setInputFiles({ name: 'guia-do-poupador.pdf', mimeType: 'application/pdf', buffer: PDF });
    await edit.getByText('PDF enviado').waitFor();
    await inputs.nth(1).setInputFiles({ name: 'capa.png', mimeType: 'image/png', buffer: await pngCover(page) });
    await edit.getByRole('img', { name: 'Capa atual de Guia do Poupador' }).waitFor();
    const cover = await eventually(
      async () => (await t.services.db('infoproducts').where({ id: created.id }).first()).cover_url as string | null,
      'the cover saved',
    );
    expect(cover).toMatch(/^\/api\/covers\/ip\d+-[0-9a-f]{16}\.png$/);
    expect((await t.services.db('infoproducts').where({ id: created.id }).first()).file_sha256).toMatch(/^[0-9a-f]{64}$/);
    await dialogShot('infoproducts-dialog-desktop', edit);
    // Saving after the upload keeps the uploaded cover.
    await edit.getByLabel('Subtítulo').fill('Para começar a guardar');
    await edit.getByRole('button', { name: 'Salvar' }).click();
    await eventually(
      async () => (await t.services.db('infoproducts').where({ id: created.id }).first()).subtitle === 'Para começar a guardar',
      'the subtitle saved',
    );
    expect((await t.services.db('infoproducts').where({ id: created.id }).first()).cover_url).toBe(cover);

    // Archive asks first.
    await page.getByRole('row').filter({ hasText: 'EBOOK-POUPADOR' }).getByRole('button', { name: 'Arquivar' }).click();
    const confirm = await settled(page.getByRole('dialog').filter({ hasText: 'Arquivar "Guia do Poupador"?' }));
    await shot('infoproducts-archive-desktop');
    await confirm.getByRole('button', { name: 'Arquivar' }).click();
    await page.getByRole('row').filter({ hasText: 'EBOOK-POUPADOR' }).getByText('Arquivado').waitFor();
    expect((await t.services.db('infoproducts').where({ id: created.id }).first()).active).toBe(false);

    // Phone.
    await page.setViewportSize(PHONE_VIEWPORT);
    await page.reload();
    // Phones: one card per e-book instead of the table.
    const card = page.getByRole('listitem').filter({ hasText: 'EBOOK-GUIA-LOTOMANIA' });
    await card.waitFor();
    await shot('infoproducts-phone');
    await card.getByRole('button', { name: 'Editar' }).click();
    const phoneDialog = await settled(page.getByRole('dialog').filter({ hasText: 'Editar e-book' }));
    await phoneDialog.getByText('Enviar PDF').waitFor();
    await dialogShot('infoproducts-dialog-phone', phoneDialog);
  });

  it('lists flagged payments with their reason and marks one reviewed with a note; desktop and phone', async () => {
    const admin = await createUser(t, { admin: true });
    const buyer = await createUser(t, { name: 'Carlos Souza' });
    const { product } = await makeProductWithDraw(t, { price_cents: 500 });
    const late = await buyEbooks(t, buyer.token, product.id, 1, 500);
    await t.services
      .db('payments')
      .where({ id: late.paymentId })
      .update({ expires_at: t.services.db.raw(`now() - interval '1 second'`) });
    await t.services.payments.poll(late.paymentId);
    await t.services.payments.approve(late.paymentId, { via: 'cli' });
    const pending = await buyEbooks(t, buyer.token, product.id, 2, 500);

    await signInWithToken(page.context(), admin.token);
    await page.setViewportSize(DESKTOP);
    await page.goto(`${t.url}/admin/pagamentos`);
    const row = page.getByRole('row').filter({ hasText: `aprovado depois de expirar` });
    await row.waitFor();
    await shot('payments-review-desktop');
    await row.getByRole('button', { name: 'Marcar como revisado' }).click();
    const dialog = await settled(page.getByRole('dialog').filter({ hasText: `Marcar o pagamento #${late.paymentId} como revisado` }));
    await dialog.getByRole('button', { name: 'Marcar como revisado' }).click();
    await dialog.getByText('Escreva uma nota sobre a revisão.').waitFor();
    await dialog.getByLabel('Nota').fill('Pago no banco depois do prazo; e-book entregue.');
    await shot('payments-review-dialog-desktop');
    await dialog.getByRole('button', { name: 'Marcar como revisado' }).click();
    await page.getByText('Nenhum pagamento para revisar.').waitFor();
    expect(await t.services.db('payments').where({ id: late.paymentId }).first()).toMatchObject({
      review_note: 'Pago no banco depois do prazo; e-book entregue.',
    });

    // All payments: the pending sandbox PIX can be approved from here.
    await page
      .locator('.payments-view label')
      .filter({ hasText: /^Todos$/ })
      .click();
    const pendingRow = page
      .getByRole('row')
      .filter({ hasText: 'Pendente' })
      .filter({ hasText: String(pending.paymentId) });
    await pendingRow.getByRole('button', { name: 'Aprovar (sandbox)' }).click();
    const confirm = await settled(page.getByRole('dialog').filter({ hasText: `Aprovar o pagamento #${pending.paymentId} no sandbox?` }));
    await confirm.getByRole('button', { name: 'Aprovar' }).click();
    await eventually(
      async () => (await t.services.db('payments').where({ id: pending.paymentId }).first()).status === 'approved',
      'the sandbox approval',
    );

    await page.setViewportSize(PHONE_VIEWPORT);
    await page.reload();
    await page
      .locator('.payments-view label')
      .filter({ hasText: /^Revisados$/ })
      .click();
    await page.getByText('Pago no banco depois do prazo; e-book entregue.').waitFor();
    await shot('payments-review-phone');
  });
});
