/**
 * Browser test of the number board on a phone (issue 26, the board's part), at 360, 390 and
 * 1280 px with axe on every state: the selection panel never covers the focused cell nor the last
 * row and collapses; 'Selecionado' is a bright fill with a check mark (≥ 3:1 against 'Disponível');
 * 'Só livres' and 'Surpresinha' (and buying what it picked); amounts on one line; the winning
 * cell amber; the board-shaped skeleton while the page's code arrives. Screenshots go to
 * docs/screenshots/board/ for a person to look at.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { createUser, type TestContext } from '../helpers/context';
import { describeBrowser, settled, signInWithToken, useBrowser } from '../helpers/browser';
import { expectAccessible } from '../helpers/a11y';
import { eventually } from '../helpers/eventually';
import { pageAtRest, paintedColours } from '../helpers/screenshots';
import { AA_TEXT, contrastRatio, flatten } from '../helpers/contrast';
import { REAL_CONTESTS } from '../helpers/fake-lottery';
import { makeDraw, sellDirectly } from '../draws/fixtures';
import { seedDemo } from '../../seeds/demo';

const SHOTS = path.resolve(__dirname, '../../docs/screenshots/board');
const PRODUCT = 'EBOOK-GUIA-LOTOMANIA';
const WIDTHS = [360, 390, 1280] as const;
const heightOf = (w: number) => (w === 360 ? 740 : w === 390 ? 844 : 900);
const pad = (n: number) => String(n).padStart(2, '0');

type Box = { x: number; y: number; width: number; height: number };

describeBrowser('the number board on a phone', () => {
  let drawId: number;
  const session = useBrowser({
    setup: async (app) => {
      await seedDemo(app.services.db);
      drawId = (await app.api('GET', '/api/config')).body.current_draw_id;
      expect(drawId).toBeGreaterThan(0);
    },
  });
  let t: TestContext;
  let context: BrowserContext;
  let page: Page;
  beforeEach(() => ({ t, context, page } = session));

  const cell = (n: number, state: string) => page.getByRole('gridcell', { name: `${pad(n)}: ${state}`, exact: true });
  const panel = () => page.getByRole('region', { name: 'Sua seleção' });

  async function open(width: number) {
    await page.setViewportSize({ width, height: heightOf(width) });
    await page.goto(`${t.url}/numeros`);
    await page.getByRole('grid', { name: /Tabela de números do sorteio/ }).waitFor();
    await page.getByRole('heading', { level: 1, name: 'Escolha seus números' }).waitFor();
  }

  /** axe on the state, then a viewport screenshot into docs/screenshots/board/. */
  async function shot(name: string) {
    await pageAtRest(page);
    await expectAccessible(page, `board: ${name}`);
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), animations: 'disabled' });
  }

  const boxOf = async (l: Locator): Promise<Box> => {
    const b = await l.boundingBox();
    if (!b) throw new Error('no box');
    return b;
  };

  /** The element is on screen, not under the panel (pinned at the bottom on phones, beside the board on wide screens) nor the sticky top bar. */
  async function expectClearOfPanel(target: Locator) {
    await eventually(async () => {
      const [c, p, bar] = [await boxOf(target), await boxOf(panel()), await boxOf(page.locator('.topbar'))];
      const vh = page.viewportSize()!.height;
      const overlaps = c.x < p.x + p.width && p.x < c.x + c.width && c.y < p.y + p.height && p.y < c.y + c.height;
      return !overlaps && c.y >= bar.y + bar.height && c.y + c.height <= vh;
    }, 'the cell to be in view, clear of the selection panel and of the top bar');
  }

  async function sellAllBut(free: number[]) {
    const other = await createUser(t);
    await t.services
      .db('draw_numbers')
      .where({ draw_id: drawId })
      .whereNotIn('n', free)
      .update({ status: 'sold', owner_user_id: other.user.id, reservation_id: null });
    t.services.draws.invalidateBoard(drawId);
  }

  async function freeAll() {
    await t.services
      .db('draw_numbers')
      .where({ draw_id: drawId })
      .update({ status: 'available', owner_user_id: null, reservation_id: null });
    t.services.draws.invalidateBoard(drawId);
  }

  it('first paint of /numeros is the board itself (server-rendered, 10 × 10), even before the page’s script arrives', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    await page.route(/\/assets\/NumbersPage-[^/]*\.js$/, async (route) => {
      await gate;
      await route.continue();
    });
    await page.goto(`${t.url}/numeros`, { waitUntil: 'commit' });
    // The page's chunk is held back: what shows is the server's HTML (src/ssr), the real board,
    // never a grey page nor a skeleton.
    const grid = page.getByRole('grid', { name: /Tabela de números do sorteio/ });
    await grid.waitFor();
    await expect(grid.getByRole('row').count()).resolves.toBe(10);
    await expect(grid.getByRole('gridcell').count()).resolves.toBe(100);
    await expect(page.getByRole('status', { name: 'Carregando a tabela de números' }).count()).resolves.toBe(0);
    await shot('first-paint-chunk-held-390');
    release();
    // Hydrated once the chunk arrives (router.tsx hydrationChunks): React takes over the same board
    // (its fiber is attached to the node), which then answers clicks.
    await page.waitForFunction(() => {
      const el = (globalThis as any).document.querySelector('#numbers-board-title');
      return !!el && Object.keys(el).some((k) => k.startsWith('__reactFiber'));
    });
    await cell(7, 'Disponível').click();
    await expect(grid.locator('[data-n="7"]').getAttribute('aria-selected')).resolves.toBe('true');
    await expect(page.getByRole('status', { name: 'Carregando a tabela de números' }).count()).resolves.toBe(0);
    await grid.locator('[data-n="7"]').click();
  });

  for (const width of WIDTHS) {
    it(`${width} px: the panel never covers the focused cell nor the last row; it collapses; amounts on one line`, async () => {
      await open(width);
      await shot(`arrival-${width}`);

      // Keyboard down to the last row: each focused cell ends up in view, above the panel.
      await cell(0, 'Disponível').focus();
      for (let i = 0; i < 9; i++) await page.keyboard.press('ArrowDown');
      await expect(page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('data-n'))).resolves.toBe('90');
      await expectClearOfPanel(cell(90, 'Disponível'));
      await page.keyboard.press('End');
      await expect(page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('data-n'))).resolves.toBe('99');
      await expectClearOfPanel(cell(99, 'Disponível'));
      await shot(`focus-last-row-${width}`);
      // And back to the first number: not hidden under the top bar either.
      await page.keyboard.press('Control+Home');
      await expect(page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('data-n'))).resolves.toBe('0');
      await expectClearOfPanel(cell(0, 'Disponível'));

      // The last row scrolled into view (as a browser does for any element) clears the panel too.
      await page.evaluate(() => (globalThis as any).scrollTo(0, 0));
      await cell(95, 'Disponível').evaluate((el: any) => el.scrollIntoView({ block: 'end', behavior: 'instant' }));
      await expectClearOfPanel(cell(95, 'Disponível'));

      const toggle = panel().locator('.numbers-panel-toggle');
      if (width < 960) {
        // The panel collapses to one line and opens again (aria-expanded says which).
        const tall = (await boxOf(panel())).height;
        await expect(toggle.getAttribute('aria-expanded')).resolves.toBe('true');
        await panel().getByRole('button', { name: 'Recolher' }).click();
        await expect(toggle.getAttribute('aria-expanded')).resolves.toBe('false');
        await expect(panel().getByRole('button', { name: 'CONFIRMAR' }).isVisible()).resolves.toBe(false);
        await eventually(async () => (await boxOf(panel())).height < tall - 40, 'the panel to shrink');
        await cell(88, 'Disponível').focus();
        await expectClearOfPanel(cell(88, 'Disponível'));
        await shot(`collapsed-${width}`);
        await panel().getByRole('button', { name: 'Mostrar seleção' }).click();
        await expect(toggle.getAttribute('aria-expanded')).resolves.toBe('true');
        await panel().getByRole('button', { name: 'CONFIRMAR' }).waitFor();
      } else {
        // Beside the board: nothing to collapse.
        await expect(toggle.isVisible()).resolves.toBe(false);
      }

      // Amounts are one unbroken run: one line box each, never "R$ 500,0" + "0".
      const amounts = page.locator('.numbers-stats .money');
      await expect(amounts.count()).resolves.toBe(2);
      const lines = await amounts.evaluateAll((els: any[]) => els.map((e) => [e.textContent, e.getClientRects().length]));
      for (const [text, boxes] of lines) {
        expect(text).toMatch(/^R\$\s\d{1,3}(\.\d{3})*,\d{2}$/);
        expect({ text, boxes }).toEqual({ text, boxes: 1 });
      }
      const nowrap = await amounts.first().evaluate((e: any) => (globalThis as any).getComputedStyle(e).whiteSpace);
      expect(nowrap).toBe('nowrap');
    }, 120_000);
  }

  it('"Selecionado" is a bright fill with a check mark, ≥ 3:1 against "Disponível"; the legend matches', async () => {
    for (const width of WIDTHS) {
      await open(width);
      await cell(7, 'Disponível').click();
      const picked = cell(7, 'selecionado');
      await picked.waitFor();
      await expect(picked.getAttribute('aria-selected')).resolves.toBe('true');
      await expect(picked.innerText()).resolves.toMatch(/^07\s*✓$/);

      // Measured at rest (the cell's colour transition over).
      await eventually(() => picked.evaluate((el: any) => el.getAnimations().length === 0), 'the cell to stop animating');
      const boardBg = (await paintedColours(page.locator('.numbers-board'))).background;
      const sel = await paintedColours(picked);
      const avail = await paintedColours(cell(8, 'Disponível'));
      const selFill = flatten(sel.background, boardBg);
      const availFill = flatten(avail.background, boardBg);
      expect(contrastRatio(selFill, availFill)).toBeGreaterThanOrEqual(3);
      expect(contrastRatio(sel.color, selFill)).toBeGreaterThanOrEqual(AA_TEXT);

      // The legend's swatches are the cells' own colours.
      const legend = page.getByRole('list', { name: 'Legenda' });
      const swatch = (label: string) =>
        legend
          .getByRole('listitem')
          .filter({ hasText: new RegExp(`^\\W*${label}$`) })
          .locator('.number-legend__swatch');
      await expect(paintedColours(swatch('Selecionado')).then((c) => c.background)).resolves.toBe(sel.background);
      await expect(paintedColours(swatch('Disponível')).then((c) => c.background)).resolves.toBe(avail.background);
      await expect(swatch('Selecionado').innerText()).resolves.toBe('✓');
      await picked.scrollIntoViewIfNeeded();
      await shot(`selected-${width}`);
    }
  }, 180_000);

  it('"Só livres" hides the sold cells; "Surpresinha" picks N free numbers', async () => {
    await sellAllBut([12, 47, 95, 96, 99]);
    try {
      for (const width of WIDTHS) {
        await open(width);
        const grid = page.getByRole('grid', { name: /Tabela de números do sorteio/ });
        await expect(grid.getByRole('gridcell').count()).resolves.toBe(100);
        const onlyFree = page.getByRole('button', { name: 'Só livres' });
        await expect(onlyFree.getAttribute('aria-pressed')).resolves.toBe('false');
        await onlyFree.click();
        await expect(onlyFree.getAttribute('aria-pressed')).resolves.toBe('true');
        await expect(grid.getByRole('gridcell').allInnerTexts()).resolves.toEqual(['12', '47', '95', '96', '99']);
        await shot(`only-free-${width}`);

        // Surpresinha: at most the free count (5) here; the visitor asks for 3.
        const count = page.getByLabel('Quantos?');
        await expect(count.locator('option').allInnerTexts()).resolves.toEqual(['1', '2', '3', '4', '5']);
        await count.selectOption('3');
        await page.getByRole('button', { name: 'Surpresinha' }).click();
        await page.getByText('Selecionados: 3').waitFor();
        const chosen = (await panel().getByRole('list', { name: 'Números selecionados' }).getByRole('button').allInnerTexts()).map((s) =>
          Number(s.replace(/\D/g, '')),
        );
        expect(chosen).toHaveLength(3);
        expect(new Set(chosen).size).toBe(3);
        for (const n of chosen) expect([12, 47, 95, 96, 99]).toContain(n);
        for (const n of chosen) await cell(n, 'selecionado').waitFor();
        await page.getByRole('status').filter({ hasText: 'Surpresinha:' }).waitFor();
        await shot(`surpresinha-${width}`);

        // Off again: the whole board.
        await onlyFree.click();
        await expect(grid.getByRole('gridcell').count()).resolves.toBe(100);
      }
    } finally {
      await freeAll();
    }
  }, 180_000);

  it('Surpresinha’s numbers are bought with the usual confirmation', async () => {
    const u = await createUser(t, { name: 'Rita de Cássia Moura' });
    await t.services.payments.grantVouchers({ user: u.email, product: PRODUCT, quantity: '2' }, { via: 'cli' });
    await signInWithToken(context, u.token);
    await open(390);
    await page.getByText('Você pode escolher 2 números agora').waitFor();
    // Capped by the allowance: 2.
    await expect(page.getByLabel('Quantos?').locator('option').allInnerTexts()).resolves.toEqual(['1', '2']);
    await page.getByLabel('Quantos?').selectOption('2');
    await page.getByRole('button', { name: 'Surpresinha' }).click();
    await page.getByText('Selecionados: 2').waitFor();
    const chosen = (await panel().getByRole('list', { name: 'Números selecionados' }).getByRole('button').allInnerTexts())
      .map((s) => Number(s.replace(/\D/g, '')))
      .sort((a, b) => a - b);
    expect(chosen).toHaveLength(2);

    await panel().getByRole('button', { name: 'CONFIRMAR' }).click();
    const dialog = await settled(page.getByRole('dialog').filter({ hasText: 'Confirmar números usando vouchers' }));
    await expect(dialog.getByRole('list', { name: 'Números a confirmar' }).innerText()).resolves.toMatch(
      new RegExp(`${pad(chosen[0])}\\s+${pad(chosen[1])}`),
    );
    await shot('surpresinha-confirm-390');
    await dialog.getByRole('button', { name: 'CONFIRMAR' }).click();
    await page.getByText('Números confirmados com sucesso! Boa sorte').waitFor();
    for (const n of chosen) await cell(n, 'Seu número').waitFor();

    const rows = await t.services
      .db('draw_numbers')
      .where({ draw_id: drawId })
      .whereIn('n', chosen)
      .orderBy('n')
      .select('n', 'status', 'owner_user_id');
    expect(rows).toEqual(chosen.map((n) => ({ n, status: 'sold', owner_user_id: u.user.id })));
    await freeAll();
  }, 120_000);

  it('a Surpresinha number taken meanwhile: the reservation’s 409 names it, the board refreshes', async () => {
    const u = await createUser(t);
    await t.services.payments.grantVouchers({ user: u.email, product: PRODUCT, quantity: '2' }, { via: 'cli' });
    await signInWithToken(context, u.token);
    await open(390);
    await page.getByLabel('Quantos?').selectOption('2');
    await page.getByRole('button', { name: 'Surpresinha' }).click();
    await page.getByText('Selecionados: 2').waitFor();
    const chosen = (await panel().getByRole('list', { name: 'Números selecionados' }).getByRole('button').allInnerTexts())
      .map((s) => Number(s.replace(/\D/g, '')))
      .sort((a, b) => a - b);
    await panel().getByRole('button', { name: 'CONFIRMAR' }).click();
    const dialog = await settled(page.getByRole('dialog').filter({ hasText: 'Confirmar números usando vouchers' }));

    // Someone else buys the first of them while the dialog is open.
    const other = await createUser(t);
    await t.services.db('draw_numbers').where({ draw_id: drawId, n: chosen[0] }).update({ status: 'sold', owner_user_id: other.user.id });
    t.services.draws.invalidateBoard(drawId);
    await dialog.getByRole('button', { name: 'CONFIRMAR' }).click();

    const notice = page.getByRole('dialog').filter({ hasText: 'Aviso' });
    await notice.getByText(`Alguns números ficaram indisponíveis/reservados: ${pad(chosen[0])}`).waitFor();
    await shot('surpresinha-conflict-390');
    await (await settled(notice)).getByRole('button', { name: 'OK' }).click();
    await notice.waitFor({ state: 'detached' });
    await cell(chosen[0], 'Indisponível').waitFor();
    await cell(chosen[1], 'selecionado').waitFor();
    await page.getByText('Selecionados: 1').waitFor();
    await freeAll();
  }, 120_000);

  it('the winning cell is amber, as the legend’s "Vencedor", with readable text', async () => {
    const numbers = REAL_CONTESTS['2650'].map(Number);
    const drawnAt = new Date(Date.now() - 2 * 86_400_000);
    const draw = await makeDraw(t, { title: 'Sorteio do tabuleiro', total_numbers: 100 });
    const winner = await createUser(t, { name: 'Beatriz Nunes Prado' });
    const win = numbers[19];
    await sellDirectly(t, draw.id, winner.user.id, [win, (win + 1) % 100]);
    await t.services
      .db('draws')
      .where({ id: draw.id })
      .update({ status: 'closed', closed_at: new Date(drawnAt.getTime() - 3600_000) });
    const out = await t.services.results.record(
      { contest_number: 2951, numbers, drawn_at: drawnAt },
      { actorUserId: null, actor: 'cli', source: 'cli' },
    );
    expect(out.decided[0]).toMatchObject({ winning_number: win, winner_user_id: winner.user.id });
    await signInWithToken(context, winner.token);

    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: heightOf(width) });
      await page.goto(`${t.url}/me/draw/${draw.id}`);
      const winning = page.getByRole('gridcell', { name: new RegExp(`^${pad(win)}: .*vencedor`) });
      await winning.waitFor();
      const c = await paintedColours(winning);
      expect(c.background).toBe('rgb(245, 166, 35)');
      expect(contrastRatio(c.color, c.background)).toBeGreaterThanOrEqual(AA_TEXT);
      const swatch = page.locator('.draw-legend-swatch.number-cell--winner');
      await expect(paintedColours(swatch).then((s) => s.background)).resolves.toBe(c.background);
      await winning.scrollIntoViewIfNeeded();
      await shot(`winner-${width}`);

      // The public result page's winning number is the same amber.
      await page.goto(`${t.url}/resultado/${draw.id}`);
      const ball = page.getByLabel(`Número vencedor ${pad(win)}`);
      await ball.waitFor();
      const b = await paintedColours(ball);
      expect(b.background).toBe('rgb(245, 166, 35)');
      expect(contrastRatio(b.color, b.background)).toBeGreaterThanOrEqual(AA_TEXT);
    }
  }, 120_000);
});
