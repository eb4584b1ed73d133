import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { makeProductWithDraw, makeDraw, sellDirectly } from '../draws/fixtures';
import { reserve } from '../payments/fixtures';
import { cellLabel } from '../../src/draws/my-board';
import type { MyDrawBoard } from '../../src/shared/api/account';

/** GET /api/me/draws/{id}/board: the draw detail of the customer area. */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1' } });
});
afterAll(() => t.close());

test('any logged-in user opens any board; only their own numbers are marked; the winner is named by initials to others', async () => {
  const u = await createUser(t, { name: 'Ana Beatriz Costa' });
  const winner = await createUser(t, { name: 'Márcia de Souza Lima' });
  const { product, draw } = await makeProductWithDraw(t, {}, { max_per_user: 0 });
  await sellDirectly(t, draw.id, u.user.id, [3, 5]);
  await sellDirectly(t, draw.id, winner.user.id, [7]);
  await reserve(t, winner.token, draw.id, [9]);

  const r = await t.api('GET', `/api/me/draws/${draw.id}/board`, { token: u.token });
  expect(r.status).toBe(200);
  const b: MyDrawBoard = r.body;
  expect(b.board).toHaveLength(100);
  expect(b.board[0]).toEqual({ n: 0, label: '00', state: 'open', isMine: false, isWinner: false });
  expect(b.board[99].label).toBe('99');
  expect(b.board.filter((c) => c.isMine).map((c) => c.n)).toEqual([3, 5]);
  expect(b.my_numbers).toEqual([3, 5]);
  expect(b.board[7]).toMatchObject({ state: 'taken', isMine: false });
  expect(b.board[9]).toMatchObject({ state: 'reserved', isMine: false });
  expect(b.draw).toMatchObject({
    id: draw.id,
    status: 'open',
    title: draw.title,
    winner_number: null,
    winner_name: null,
    realized_at: null,
    sku: product.sku,
  });
  // Nothing about other people beyond the cell state.
  expect(r.text).not.toContain('Márcia');

  await t.services.db('draws').where({ id: draw.id }).update({
    status: 'drawn',
    closed_at: t.services.db.fn.now(),
    realized_at: t.services.db.fn.now(),
    winner_user_id: winner.user.id,
    winner_number: 7,
    product_name: 'Vale-compras',
    product_link: 'https://loja.example/premio',
  });
  const mine = (await t.api('GET', `/api/me/draws/${draw.id}/board`, { token: u.token })).body as MyDrawBoard;
  expect(mine.draw).toMatchObject({
    status: 'sorteado',
    result: 'nao contemplado',
    winner_number: 7,
    winner_name: 'MDS',
    product_name: 'Vale-compras',
    product_link: 'https://loja.example/premio',
  });
  expect(mine.draw.realized_at).toEqual(expect.any(String));
  expect(mine.board.filter((c) => c.isWinner).map((c) => c.n)).toEqual([7]);
  const theirs = (await t.api('GET', `/api/me/draws/${draw.id}/board`, { token: winner.token })).body as MyDrawBoard;
  expect(theirs.draw.winner_name).toBe('Márcia de Souza Lima');
  expect(theirs.draw.result).toBe('contemplado');
  // Someone without numbers in it sees the draw decided, neither won nor lost.
  const visitor = await createUser(t);
  expect((await t.api('GET', `/api/me/draws/${draw.id}/board`, { token: visitor.token })).body.draw).toMatchObject({
    status: 'sorteado',
    result: 'sorteado',
  });
  expect(theirs.my_numbers).toEqual([7]);
  expect(theirs.board[7]).toMatchObject({ isMine: true, isWinner: true });
});

test('labels follow the board size; a draw without product has no sku', async () => {
  const u = await createUser(t);
  const draw = await makeDraw(t, { total_numbers: 150 });
  const b = (await t.api('GET', `/api/me/draws/${draw.id}/board`, { token: u.token })).body as MyDrawBoard;
  expect(b.board.map((c) => c.label).slice(0, 2)).toEqual(['000', '001']);
  expect(b.board[149].label).toBe('149');
  expect(b.draw.sku).toBeNull();
  expect([cellLabel(5, 100), cellLabel(5, 10), cellLabel(5, 1000)]).toEqual(['05', '05', '005']);
});

test('unknown draw 404, bad id 400, anonymous 401', async () => {
  const u = await createUser(t);
  const missing = await t.api('GET', '/api/me/draws/987654/board', { token: u.token });
  expect(missing.status).toBe(404);
  expect(missing.body).toMatchObject({ error: 'draw_not_found', message: 'Sorteio não encontrado.' });
  for (const bad of ['abc', '0', '-1', '1.5', '99999999999999999999']) {
    const r = await t.api('GET', `/api/me/draws/${bad}/board`, { token: u.token });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'validation_error', message: 'Sorteio inválido.' });
  }
  const { draw } = await makeProductWithDraw(t);
  expect((await t.api('GET', `/api/me/draws/${draw.id}/board`)).status).toBe(401);
});
