/**
 * Browser test of the public result page (/resultado/{id}) and of the customer's draw
 * detail once the draw is drawn: the winner sees CONTEMPLADO, another buyer NÃO CONTEMPLADO, both
 * reach the result page. Phone and desktop screenshots go to docs/screenshots/results/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { createUser, type TestContext } from '../helpers/context';
import { describeBrowser, signInWithToken, useBrowser } from '../helpers/browser';
import { REAL_CONTESTS } from '../helpers/fake-lottery';
import { makeDraw, range, sellDirectly } from '../draws/fixtures';

const SHOTS = path.resolve(__dirname, '../../docs/screenshots/results');
const pad = (n: number) => String(n).padStart(2, '0');

describeBrowser('the result of a draw in the browser', () => {
  const session = useBrowser();
  let t: TestContext;
  let context: BrowserContext;
  let page: Page;
  beforeEach(() => ({ t, context, page } = session));

  async function shot(name: string, width: number) {
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.setViewportSize({ width, height: width > 800 ? 900 : 844 });
    await page.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`), fullPage: true });
  }

  it('shows the contest, the 20 numbers, the walk and the winner; the draw detail says CONTEMPLADO / NÃO CONTEMPLADO', async () => {
    const numbers = REAL_CONTESTS['2650'].map(Number);
    const drawnAt = new Date(Date.now() - 2 * 86_400_000);
    const draw = await makeDraw(t, { title: 'Sorteio Lotomania de Teste', total_numbers: 100 });
    const winner = await createUser(t, { name: 'Mariana Alves Rocha' });
    const other = await createUser(t, { name: 'Otávio Lins' });
    // The last two drawn numbers are unsold: the walk passes them.
    const [last, beforeLast, third] = [numbers[19], numbers[18], numbers[17]];
    await sellDirectly(t, draw.id, winner.user.id, [third]);
    await sellDirectly(
      t,
      draw.id,
      other.user.id,
      range(0, 100).filter((n) => ![last, beforeLast, third].includes(n) && n % 3 === 0),
    );
    await t.services
      .db('draws')
      .where({ id: draw.id })
      .update({ status: 'closed', closed_at: new Date(drawnAt.getTime() - 3600_000) });

    // Not drawn yet: the page says so.
    await page.goto(`${t.url}/resultado/${draw.id}`);
    await page.getByRole('heading', { name: 'Resultado ainda não disponível' }).waitFor();
    await page.getByText('O resultado deste sorteio ainda não saiu.').waitFor();

    const out = await t.services.results.record(
      { contest_number: 2950, numbers, drawn_at: drawnAt },
      { actorUserId: null, actor: 'cli', source: 'cli' },
    );
    expect(out.decided[0]).toMatchObject({ winning_number: third, winner_user_id: winner.user.id });

    await page.goto(`${t.url}/resultado/${draw.id}`);
    await page.getByRole('heading', { name: `Resultado do Sorteio #${String(draw.id).padStart(3, '0')}` }).waitFor();
    await page.getByText('Concurso 2950 da Lotomania').waitFor();
    await page.getByLabel(`Número vencedor ${pad(third)}`).waitFor();
    await page.getByText('MAR', { exact: true }).waitFor();
    const balls = page.getByRole('list', { name: 'Números sorteados na ordem do sorteio' }).getByRole('listitem');
    expect(await balls.count()).toBe(20);
    expect((await balls.allInnerTexts()).map((s) => s.replace(/\s+/g, ' ').trim())).toEqual(numbers.map((n, i) => `${i + 1}º ${pad(n)}`));
    const walk = page.getByRole('list', { name: 'Números que não venceram' }).getByRole('listitem');
    expect(await walk.allInnerTexts()).toEqual([
      `${pad(last)}: não foi vendido neste sorteio`,
      `${pad(beforeLast)}: não foi vendido neste sorteio`,
    ]);
    await shot('resultado', 390);
    await shot('resultado', 1280);

    // The winner's draw detail: CONTEMPLADO, the prize and its deadline, a link to the result.
    await signInWithToken(context, winner.token);
    await page.goto(`${t.url}/me/draw/${draw.id}`);
    await page.getByText('CONTEMPLADO', { exact: true }).waitFor();
    await page.getByText(`Número vencedor: ${pad(third)}`).waitFor();
    // The prize and how to claim it (issue 26).
    await page.locator('.prize-card').getByText('Prazo para resgatar:').waitFor();
    await page.locator('.prize-card .prize-amount-value').waitFor();
    await shot('detalhe-contemplado', 390);
    await page.getByRole('link', { name: 'Ver o resultado (concurso da Lotomania)' }).click();
    await page.waitForURL(`**/resultado/${draw.id}`);
    await page.getByText('Concurso 2950 da Lotomania').waitFor();

    // /conta: the held raffle says CONTEMPLADO.
    await page.goto(`${t.url}/conta`);
    await page
      .getByRole('article', { name: `Sorteio #${String(draw.id).padStart(3, '0')}`, exact: true })
      .getByText('CONTEMPLADO', { exact: true })
      .waitFor();
    await shot('conta-contemplado', 390);
  });

  it('another buyer sees NÃO CONTEMPLADO', async () => {
    const numbers = REAL_CONTESTS['2651'].map(Number);
    const drawnAt = new Date(Date.now() - 9 * 86_400_000);
    const draw = await makeDraw(t, { total_numbers: 100 });
    const a = await createUser(t);
    const b = await createUser(t);
    await sellDirectly(t, draw.id, a.user.id, [numbers[19]]);
    await sellDirectly(t, draw.id, b.user.id, [numbers[0]]);
    await t.services
      .db('draws')
      .where({ id: draw.id })
      .update({ status: 'closed', closed_at: new Date(drawnAt.getTime() - 3600_000) });
    await t.services.results.record(
      { contest_number: 2940, numbers, drawn_at: drawnAt },
      { actorUserId: null, actor: 'cli', source: 'cli' },
    );
    await signInWithToken(context, b.token);
    await page.goto(`${t.url}/me/draw/${draw.id}`);
    await page.getByText('NÃO CONTEMPLADO', { exact: true }).waitFor();
    await page.getByRole('link', { name: 'Ver o resultado (concurso da Lotomania)' }).waitFor();
    await shot('detalhe-nao-contemplado', 390);
    await page.goto(`${t.url}/conta`);
    await page
      .getByRole('article', { name: `Sorteio #${String(draw.id).padStart(3, '0')}`, exact: true })
      .getByText('NÃO CONTEMPLADO', { exact: true })
      .waitFor();
  });
});
