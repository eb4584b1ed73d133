/**
 * Browser test of the number board (/numeros): confirming numbers with vouchers, a number taken
 * by someone else between picking and confirming, and an anonymous visitor sent to sign in.
 * Phone-sized screen, real API serving the built SPA (web/dist), demo catalogue.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { createUser, type TestContext } from '../helpers/context';
import { describeBrowser, settled, signInWithToken, submitLogin, useBrowser } from '../helpers/browser';
import { paintedColours, saveScreenshot } from '../helpers/screenshots';
import { AA_TEXT, contrastRatio, flatten } from '../helpers/contrast';
import { initialsOf } from '../../src/auth/serializers';
import { seedDemo } from '../../seeds/demo';

const PRODUCT = 'EBOOK-GUIA-LOTOMANIA';

describeBrowser('number board in the browser', () => {
  let drawId: number;
  const session = useBrowser({
    setup: async (app) => {
      await seedDemo(app.services.db);
      const config = await app.api('GET', '/api/config');
      drawId = config.body.current_draw_id;
      expect(drawId).toBeGreaterThan(0);
    },
  });
  let t: TestContext;
  let context: BrowserContext;
  let page: Page;
  // The hooks of useBrowser fill the session in; each test reads its own page.
  beforeEach(() => ({ t, context, page } = session));

  /** A customer holding `vouchers` vouchers of the main series, signed in in this browser. */
  async function signedInCustomer(vouchers: number, name?: string) {
    const u = await createUser(t, { name });
    if (vouchers > 0) {
      await t.services.payments.grantVouchers({ user: u.email, product: PRODUCT, quantity: String(vouchers) }, { via: 'cli' });
    }
    await signInWithToken(context, u.token);
    return u;
  }

  const cell = (n: number, state: 'Disponível' | 'Reservado' | 'Indisponível' | 'selecionado' | 'Seu número') =>
    page.getByRole('gridcell', { name: `${String(n).padStart(2, '0')}: ${state}`, exact: true });

  const panelButton = (name: string) => page.getByRole('region', { name: 'Sua seleção' }).getByRole('button', { name });

  async function cellsOf(numbers: number[]) {
    return t.services
      .db('draw_numbers')
      .where({ draw_id: drawId })
      .whereIn('n', numbers)
      .orderBy('n')
      .select('n', 'status', 'owner_user_id', 'reservation_id');
  }

  it('confirms two numbers with two vouchers: success message, cells marked as the customer’s, sold to them', async () => {
    const { user } = await signedInCustomer(2, 'Maria Eduarda Souza');
    // Someone else's number, sold before.
    const other = await createUser(t, { name: 'João Pedro Alves' });
    await t.services.db('draw_numbers').where({ draw_id: drawId, n: 3 }).update({ status: 'sold', owner_user_id: other.user.id });
    t.services.draws.invalidateBoard(drawId);
    await page.goto(`${t.url}/numeros`);
    await page.getByText('Você pode escolher 2 números agora').waitFor();
    await page.getByRole('heading', { level: 1, name: 'Escolha seus números' }).waitFor();
    await page.getByText('Guia Prático da Lotomania').first().waitFor();

    // Nothing picked yet: CONFIRMAR is off.
    await expect(panelButton('CONFIRMAR').isDisabled()).resolves.toBe(true);

    await cell(7, 'Disponível').click();
    await cell(42, 'Disponível').click();
    await cell(42, 'selecionado').waitFor();
    await page.getByText('Selecionados: 2').waitFor();

    // A third pick is over the allowance: notice, selection unchanged.
    await cell(55, 'Disponível').click();
    const notice = page.getByRole('dialog').filter({ hasText: 'Aviso' });
    await notice.getByText('Você atingiu seu limite de números disponíveis neste sorteio.').waitFor();
    await (await settled(notice)).getByRole('button', { name: 'OK' }).click();
    await notice.waitFor({ state: 'detached' });
    await expect(cell(55, 'Disponível').count()).resolves.toBe(1);

    await panelButton('CONFIRMAR').click();
    const dialog = await settled(page.getByRole('dialog').filter({ hasText: 'Confirmar números usando vouchers' }));
    await expect(dialog.getByRole('list', { name: 'Números a confirmar' }).innerText()).resolves.toMatch(/07\s+42/);
    await expect(dialog.getByRole('button', { name: 'VOLTAR' }).isVisible()).resolves.toBe(true);
    await expect(dialog.getByRole('button', { name: 'LIMPAR SELEÇÃO' }).isVisible()).resolves.toBe(true);
    await dialog.getByRole('button', { name: 'CONFIRMAR' }).click();

    await page.getByText('Números confirmados com sucesso! Boa sorte').waitFor();
    // The customer's own numbers are marked 'Seu número' with their initials; the other buyer's
    // number stays a plain unavailable one.
    const initials = initialsOf('Maria Eduarda Souza');
    expect(initials).toBe('MES');
    await cell(7, 'Seu número').waitFor();
    await cell(42, 'Seu número').waitFor();
    await expect(cell(7, 'Seu número').innerText()).resolves.toMatch(new RegExp(`^07\\s*${initials}$`));
    await cell(3, 'Indisponível').waitFor();
    await expect(cell(3, 'Indisponível').innerText()).resolves.toBe('03');
    await page.getByText('Seus números neste sorteio:').waitFor();
    await expect(page.locator('.numbers-mine').innerText()).resolves.toBe('Seus números neste sorteio: 07, 42');
    await expect(page.getByRole('list', { name: 'Legenda' }).getByText('Seu número', { exact: true }).isVisible()).resolves.toBe(true);
    await page.getByText('Você pode escolher 0 números agora').waitFor();
    await page.getByText('Selecionados: 0').waitFor();

    // A dimmed (sold) cell is readable: its text against its background on the board, as painted.
    const dim = await paintedColours(cell(3, 'Indisponível'));
    const boardBg = (await paintedColours(page.locator('.numbers-board'))).background;
    expect(contrastRatio(dim.color, flatten(dim.background, boardBg))).toBeGreaterThanOrEqual(AA_TEXT);

    // Every cell is a touch target of at least 32 × 32 px on this phone (WCAG 2.2 target size; the
    // board keeps the page's margins and a gap between cells, so 34 px at 390 px).
    const boxes = await page
      .getByRole('grid')
      .getByRole('gridcell')
      .evaluateAll((els: any[]) =>
        els.map((e) => {
          const r = e.getBoundingClientRect();
          return [r.width, r.height];
        }),
      );
    expect(boxes).toHaveLength(100);
    expect(Math.min(...boxes.flat())).toBeGreaterThanOrEqual(32);

    await page.getByRole('grid').scrollIntoViewIfNeeded();
    await saveScreenshot(page, 'numeros-own-numbers');

    // A wide screen: board beside the header and panel, cells as before.
    await page.setViewportSize({ width: 1280, height: 900 });
    await cell(42, 'Seu número').waitFor();
    await saveScreenshot(page, 'numeros-own-numbers-wide');
    await page.setViewportSize({ width: 390, height: 844 });

    // After a reload the marks come back from the customer's reservations.
    await page.reload();
    await cell(42, 'Seu número').waitFor();
    await cell(7, 'Seu número').waitFor();
    await cell(3, 'Indisponível').waitFor();

    const rows = await cellsOf([7, 42]);
    await t.services.db('draw_numbers').where({ draw_id: drawId, n: 3 }).update({ status: 'available', owner_user_id: null });
    t.services.draws.invalidateBoard(drawId);
    expect(rows).toEqual([
      { n: 7, status: 'sold', owner_user_id: user.id, reservation_id: null },
      { n: 42, status: 'sold', owner_user_id: user.id, reservation_id: null },
    ]);
    const balance = await t.services.db('voucher_balances').where({ user_id: user.id }).first('balance');
    expect(balance.balance).toBe(0);
  }, 120_000);

  it('reports a number reserved by someone else before confirming, and sends nothing', async () => {
    const { user } = await signedInCustomer(1);
    const other = await createUser(t);
    await page.goto(`${t.url}/numeros`);
    await page.getByText('Você pode escolher 1 número agora').waitFor();

    await cell(15, 'Disponível').click();
    await cell(15, 'selecionado').waitFor();

    // Another customer takes it through the API while this one is still deciding.
    const res = await t.api('POST', '/api/reservations', { token: other.token, body: { numbers: [15], draw_id: drawId } });
    expect(res.status).toBe(201);

    await panelButton('CONFIRMAR').click();
    const notice = page.getByRole('dialog').filter({ hasText: 'Aviso' });
    await notice.getByText('Alguns números ficaram indisponíveis/reservados: 15').waitFor();
    await expect(page.getByRole('dialog').filter({ hasText: 'Confirmar números usando vouchers' }).count()).resolves.toBe(0);
    await (await settled(notice)).getByRole('button', { name: 'OK' }).click();
    await notice.waitFor({ state: 'detached' });

    // The board shows it reserved and the selection let it go.
    await cell(15, 'Reservado').waitFor();
    await page.getByText('Selecionados: 0').waitFor();

    const [row] = await cellsOf([15]);
    expect(row).toMatchObject({ status: 'reserved', owner_user_id: null, reservation_id: res.body.reservationId });
    const mine = await t.services.db('reservations').where({ user_id: user.id }).count<{ c: string }[]>({ c: '*' });
    expect(Number(mine[0].c)).toBe(0);
    const sales = await t.services.db('number_sales').where({ user_id: user.id }).count<{ c: string }[]>({ c: '*' });
    expect(Number(sales[0].c)).toBe(0);
  }, 120_000);

  it('sends an anonymous visitor to /login to confirm, and back to the board with the picks', async () => {
    const u = await createUser(t);
    await page.goto(`${t.url}/numeros`);
    await page.getByText('Escolha seus números e entre na sua conta para confirmar.').waitFor();

    await cell(88, 'Disponível').click();
    await page.getByText('Selecionados: 1').waitFor();
    await panelButton('CONFIRMAR').click();

    await page.waitForURL(`${t.url}/login`);
    await page.getByText('Entre na sua conta para confirmar seus números.').waitFor();

    await submitLogin(page, u.email, u.password);

    // Signed in, the board comes back with the number picked before.
    await page.waitForURL(`${t.url}/numeros`);
    await cell(88, 'selecionado').waitFor();
    await page.getByText('Você pode escolher 0 números agora').waitFor();
    // No vouchers: the pick is over the allowance, so CONFIRMAR stays off.
    await expect(panelButton('CONFIRMAR').isDisabled()).resolves.toBe(true);
    const [row] = await cellsOf([88]);
    expect(row.status).toBe('available');
  }, 120_000);

  // Last: it sells the main board out, so the series moves on to a new draw.
  it('buys the last free number: the board closes and the next round opens on screen', async () => {
    const { user } = await signedInCustomer(1);
    const earlier = await createUser(t);
    await t.services
      .db('draw_numbers')
      .where({ draw_id: drawId })
      .whereNot({ n: 64 })
      .update({ status: 'sold', owner_user_id: earlier.user.id, reservation_id: null });
    await page.goto(`${t.url}/numeros`);
    await page.getByText('Você pode escolher 1 número agora').waitFor();
    await page.getByText('1 de 100 números disponíveis').waitFor();

    await cell(64, 'Disponível').click();
    await panelButton('CONFIRMAR').click();
    const dialog = await settled(page.getByRole('dialog').filter({ hasText: 'Confirmar números usando vouchers' }));
    await dialog.getByRole('button', { name: 'CONFIRMAR' }).click();

    await page.getByText(/^Tabela esgotada! Nova rodada \(#\d+\) aberta automaticamente\.$/).waitFor();
    const next = await t.services.db('draws').where({ predecessor_id: drawId }).first();
    expect(next).toBeTruthy();
    await page.getByText(`Tabela esgotada! Nova rodada (#${next.id}) aberta automaticamente.`).waitFor();
    await page.getByText(`Sorteio #${next.id}`).waitFor();
    await page.getByText('100 de 100 números disponíveis').waitFor();

    // The sold-out board waits for the Lotomania draw in the closed list.
    const closed = page.getByRole('region', { name: 'Sorteios fechados (aguardando sorteio)' });
    await closed.getByText(`#${drawId}`, { exact: true }).waitFor();
    await expect(closed.getByText('Fechado').first().isVisible()).resolves.toBe(true);

    const [row] = await cellsOf([64]);
    expect(row).toMatchObject({ status: 'sold', owner_user_id: user.id });
    const old = await t.services.db('draws').where({ id: drawId }).first();
    expect(old.status).toBe('closed');
  }, 120_000);

  it('a number sold through the API appears on an open board without a reload (pushed live, no poll)', async () => {
    // The test before sold the draw out: the board shows the current draw now.
    drawId = (await t.api('GET', '/api/config')).body.current_draw_id;
    const first = (await t.services.db('draw_numbers').where({ draw_id: drawId, status: 'available' }).orderBy('n', 'desc').first('n'))
      .n as number;
    let navigations = 0;
    page.on('framenavigated', (f) => {
      if (f === page.mainFrame()) navigations++;
    });
    const boardReads: string[] = [];
    page.on('request', (r) => {
      if (/\/api\/draws\/\d+\/numbers/.test(r.url())) boardReads.push(r.url());
    });
    // The stream is open (answered 200) before the sale.
    const streamOpen = page.waitForResponse((r) => new RegExp(`/api/draws/${drawId}/events$`).test(r.url()) && r.status() === 200);
    await page.goto(`${t.url}/numeros`);
    await cell(first, 'Disponível').waitFor();
    await streamOpen;
    const navigationsBefore = navigations;
    const readsBefore = boardReads.length;

    const buyer = await createUser(t, { name: 'Rita Lopes' });
    await t.services.payments.grantVouchers({ user: buyer.email, product: PRODUCT, quantity: '1' }, { via: 'cli' });
    const hold = await t.api('POST', '/api/reservations', { token: buyer.token, body: { draw_id: drawId, numbers: [first] } });
    expect(hold.status).toBe(201);
    const sale = await t.api('POST', '/api/vouchers/consume', {
      token: buyer.token,
      body: { reservationId: hold.body.id, numbers: [first] },
    });
    expect(sale.status).toBe(200);

    await cell(first, 'Indisponível').waitFor({ timeout: 10_000 });
    expect(navigations).toBe(navigationsBefore);
    expect(boardReads.length).toBe(readsBefore); // not the 15 s poll: the change was pushed
    await saveScreenshot(page, 'numbers-live-phone');
  }, 120_000);
});
