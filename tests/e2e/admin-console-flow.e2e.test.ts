/**
 * The admin console's whole flow in a browser, through the real console pages as an admin: sign in
 * → the dashboard shows the current draw → /admin/infoproducts: a new e-book with a PDF (a small
 * real PDF made here) → its draw opens and is listed in the dashboard's draws table, whose 'Compras
 * automáticas' detail is fetched only when opened → /admin/AdminClientesUser assigns two numbers of
 * that draw to a customer → /admin/sorteiosAtivos (that draw, picked with 'Ver compradores') lists
 * them → 'Exportar CSV' downloads a BOM + ';' file with the customer's row → the customer, in a
 * second browser, sees the two numbers in /conta. 'Filas (operações)' opens the queue dashboard.
 * Desktop (1280) screens for the admin, phone (390) for the customer; demo catalogue.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { createUser, type TestContext } from '../helpers/context';
import { describeBrowser, PHONE_VIEWPORT, settled, signInWithToken, useBrowser } from '../helpers/browser';
import { eventually } from '../helpers/eventually';
import { readAppConfig } from '../../src/platform/app-config';
import { seedDemo } from '../../seeds/demo';
import { saveFullPageShot } from '../helpers/screenshots';

// Uploads of this file go to temporary storage, not to the repository's storage/.
const STORAGE = fs.mkdtempSync(path.join(os.tmpdir(), 'cv-admin-flow-'));
process.env.EBOOK_STORAGE_DIR = path.join(STORAGE, 'ebooks');
process.env.COVER_STORAGE_DIR = path.join(STORAGE, 'covers');
fs.mkdirSync(process.env.EBOOK_STORAGE_DIR);
const SHOTS = path.resolve(__dirname, '../../docs/screenshots/admin');
const DESKTOP = { width: 1280, height: 900 };
const pad3 = (n: number) => String(n).padStart(3, '0');

/** A small, valid one-page PDF (header, catalog, page, content stream, xref, trailer). */
function tinyPdf(text: string): Buffer {
  const stream = `BT /F1 18 Tf 40 780 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

// Each page state and dialog also runs axe (tests/helpers/a11y.ts): slower than jest's default 60 s on a busy machine.
jest.setTimeout(180_000);
describeBrowser('admin console: the whole flow', () => {
  const session = useBrowser({ setup: (app) => seedDemo(app.services.db).then(() => undefined) });
  let t: TestContext;
  let context: BrowserContext;
  let page: Page;
  beforeEach(() => ({ t, context, page } = session));
  afterAll(() => fs.rmSync(STORAGE, { recursive: true, force: true }));

  const shot = (name: string, p: Page = page) => saveFullPageShot(p, SHOTS, name);

  it('e-book with PDF → its draw → two numbers assigned → buyers listed and exported → the customer sees them; the queue dashboard opens', async () => {
    const admin = await createUser(t, { admin: true, name: 'Ana Admin' });
    const customer = await createUser(t, { name: 'Carlos Pereira' });
    const cfg = await readAppConfig(t.services.db);
    const main = await t.services.db('draws').where({ infoproduct_id: cfg.main_infoproduct_id, status: 'open' }).first();
    expect(main).toBeTruthy();

    await signInWithToken(context, admin.token);
    await page.setViewportSize(DESKTOP);
    const autopayCalls: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/admin/autopay/runs')) autopayCalls.push(r.url());
    });

    // --- the dashboard shows the current draw of the main series ---
    await page.goto(`${t.url}/admin`);
    const current = page.locator('.current-draw-card');
    await current.getByText(`#${pad3(main.id)}`).waitFor();

    // --- a new e-book with its PDF ---
    await page.goto(`${t.url}/admin/infoproducts`);
    await page.getByRole('heading', { name: 'Cadastro de Infoprodutos' }).waitFor();
    await page.getByRole('button', { name: 'Novo e-book' }).click();
    const dialog = await settled(page.getByRole('dialog').filter({ hasText: 'Novo e-book' }));
    await dialog.getByLabel('SKU', { exact: true }).fill('EBOOK-FLUXO-ADMIN');
    await dialog.getByLabel('Título', { exact: true }).fill('Planilha do Orçamento Familiar');
    await dialog.getByLabel('Preço (R$)').fill('12,90');
    await dialog.getByLabel('Prêmio (R$)').fill('800,00');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    const edit = page.getByRole('dialog').filter({ hasText: 'Editar e-book' });
    await edit.getByText('Nenhum PDF enviado').waitFor();
    const pdf = tinyPdf('Planilha do Orcamento Familiar');
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    await edit.locator('input[type="file"]').nth(0).setInputFiles({ name: 'orcamento.pdf', mimeType: 'application/pdf', buffer: pdf });
    // ('Nenhum PDF enviado' holds 'PDF enviado' too: wait for it to go.)
    await eventually(async () => (await edit.getByText('Nenhum PDF enviado').count()) === 0 || null, 'the PDF upload');
    const product = await t.services.db('infoproducts').where({ sku: 'EBOOK-FLUXO-ADMIN' }).first();
    expect(product).toMatchObject({ title: 'Planilha do Orçamento Familiar', price_cents: 1290, active: true });
    expect(product.file_sha256).toMatch(/^[0-9a-f]{64}$/);
    await edit.getByRole('button', { name: 'Fechar' }).last().click();

    // --- its draw is open and listed in the dashboard's draws table ---
    const draw = await t.services.db('draws').where({ infoproduct_id: product.id, status: 'open' }).first();
    expect(draw).toBeTruthy();
    await page.goto(`${t.url}/admin`);
    const row = page.locator(`.draws-card [data-draw-id="${draw.id}"]`);
    await row.waitFor();
    expect(await row.innerText()).toContain('Planilha do Orçamento Familiar');
    await row.getByRole('button', { name: `Status ABERTO do sorteio #${pad3(draw.id)}: clique para fechar` }).waitFor();
    // 'Compras automáticas': nothing fetched until the admin opens it.
    expect(autopayCalls).toEqual([]);
    const toggle = row.getByRole('button', { name: `Compras automáticas do sorteio #${pad3(draw.id)}` });
    await toggle.click();
    const detail = page.locator(`#draw-autopay-${draw.id}`);
    await detail.getByText('Nenhuma compra automática neste sorteio.').waitFor();
    expect(autopayCalls).toHaveLength(1);
    expect(new URL(autopayCalls[0]).searchParams.get('draw_id')).toBe(String(draw.id));
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');

    // --- the customer registry assigns two numbers of that draw ---
    await page.goto(`${t.url}/admin/AdminClientesUser`);
    const customerRow = page.getByRole('row').filter({ hasText: 'Carlos Pereira' });
    await customerRow.getByRole('button', { name: 'Atribuir números' }).click();
    const assign = await settled(page.getByRole('dialog').filter({ hasText: 'Atribuir números' }));
    await assign.getByLabel('Sorteio ID').fill(String(draw.id));
    await assign.getByLabel('Sorteio ID').blur();
    await assign.getByText(`Sorteio #${pad3(draw.id)} (aberto)`).waitFor();
    await assign.getByRole('gridcell', { name: '11: Disponível' }).click();
    await assign.getByRole('gridcell', { name: '27: Disponível' }).click();
    // The new e-book's draw allows one number per person: the admin overrides it on purpose.
    await assign.getByText('Ignorar o limite por usuário deste sorteio').click();
    await assign.getByRole('button', { name: 'Atribuir' }).click();
    await page.getByText('Números atribuídos com sucesso.').waitFor();
    const owned = await t.services.db('draw_numbers').where({ draw_id: draw.id, owner_user_id: customer.user.id }).orderBy('n').pluck('n');
    expect(owned).toEqual([11, 27]);
    await assign.getByRole('button', { name: 'Fechar' }).last().click();

    // --- the active raffle buyers of that draw ---
    await page.goto(`${t.url}/admin/sorteiosAtivos`);
    await page.getByRole('heading', { name: 'Sorteio Ativo — Compradores' }).waitFor();
    await page.getByLabel('Nº do sorteio').or(page.locator('#open-buyers-draw')).first().fill(String(draw.id));
    await page.getByRole('button', { name: 'Ver compradores' }).click();
    await page.waitForURL(new RegExp(`/admin/sorteiosAtivos\\?sorteio=${draw.id}$`));
    await page.getByText(`Nº ${pad3(draw.id)}`).waitFor();
    const buyerRow = page.getByRole('row').filter({ hasText: 'Carlos Pereira' });
    await buyerRow.waitFor();
    expect(await buyerRow.innerText()).toMatch(/11\s+27/);
    await shot('open-buyers-picked-desktop');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Exportar CSV' }).click()]);
    expect(download.suggestedFilename()).toBe(`compradores-sorteio-${pad3(draw.id)}.csv`);
    const csv = fs.readFileSync((await download.path())!);
    expect([...csv.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = csv.toString('utf8').slice(1).split('\r\n');
    expect(lines[0]).toBe('Nome;E-mail;Telefone;Quantidade;Números;Total (R$)');
    const line = lines.find((l) => l.startsWith('Carlos Pereira;'));
    expect(line).toBeDefined();
    const cells = line!.split(';');
    expect(cells[1]).toBe(customer.user.email);
    expect(cells[3]).toBe('2');
    expect(cells[4]).toBe('11 27');
    expect(cells[5]).toBe('0,00'); // assigned by the admin: a payment of amount 0

    // --- 'Filas (operações)' opens the queue dashboard through a signed link ---
    // The new tab is sent to the signed link, built on PUBLIC_URL (http://cotaverde.test in tests,
    // a name that does not resolve here): the tab's request is caught, then replayed on the test app.
    const publicUrl = new URL(t.services.config.publicUrl).origin;
    const [popup, linkRequest] = await Promise.all([
      context.waitForEvent('page'),
      context.waitForEvent('request', (r) => r.url().startsWith(`${publicUrl}/ops/login?token=`)),
      page.locator('.admin-console-sider').getByRole('button', { name: 'Filas (operações)' }).click(),
    ]);
    const link = new URL(linkRequest.url());
    // The tab's own navigation fails on that name; the same link opens in another tab of this browser.
    const ops = await context.newPage();
    const answer = await ops.goto(t.url + link.pathname + link.search);
    expect(new URL(ops.url()).pathname).toMatch(/^\/ops\/queues/);
    expect(answer?.status()).toBe(200);
    await ops.getByText('main', { exact: true }).first().waitFor({ timeout: 20_000 });
    expect(await ops.title()).toBe('Cota Verde — filas');
    await ops.close();
    await popup.close();

    // --- the customer sees the two numbers in /conta (another browser, a phone) ---
    const other = await session.browser.newContext({ viewport: PHONE_VIEWPORT, locale: 'pt-BR' });
    try {
      await signInWithToken(other, customer.token);
      const phone = await other.newPage();
      await phone.goto(`${t.url}/conta`);
      const card = phone.getByRole('article', { name: `Sorteio #${pad3(draw.id)}`, exact: true });
      await card.waitFor();
      await expect(card.getByRole('list', { name: 'Números' }).innerText()).resolves.toMatch(/11\s+27/);
    } finally {
      await other.close();
    }
  });
});
