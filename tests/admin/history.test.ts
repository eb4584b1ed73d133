import { createUser, type TestContext } from '../helpers/context';
import { adminContext, type TestUser } from './setup';
import { makeDraw } from '../draws/fixtures';
import { drawnDraw, sell } from './history-fixtures';

/**
 * Held raffles (account spec §7 "Held raffles", the console's '/admin/sorteios'): the public GET
 * /api/draws?status=closed, the admin's GET /api/admin/draws/history (closed and drawn draws,
 * paginated, searchable) and GET /api/admin/draws/{id}/participants (grouped by user, sorted by
 * name).
 */
let t: TestContext;
let admin: TestUser;
beforeAll(async () => ({ t, admin } = await adminContext()));
afterAll(() => t.close());

const api = (method: string, path: string) => t.api(method, path, { token: admin.token });
const ids = (r: { body: { items: Array<{ id: number }> } }) => r.body.items.map((d) => d.id);

describe('GET /api/draws?status=closed (public)', () => {
  test('lists closed draws only, from the read cache, refreshed when a draw closes', async () => {
    const closed = await makeDraw(t, { status: 'closed' });
    const open = await makeDraw(t, {});
    const r = await t.api('GET', '/api/draws?status=closed');
    expect(r.status).toBe(200);
    expect(ids(r)).toContain(closed.id);
    expect(ids(r)).not.toContain(open.id);
    expect(r.body.items.every((d: { status: string }) => d.status === 'closed')).toBe(true);
    // Closing through the admin API drops the cached list.
    expect((await t.api('PATCH', `/api/admin/draws/${open.id}`, { token: admin.token, body: { status: 'closed' } })).status).toBe(200);
    expect(ids(await t.api('GET', '/api/draws?status=closed'))).toContain(open.id);
    const bad = await t.api('GET', '/api/draws?status=fechadissimo');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('validation_error');
  });
});

describe('GET /api/admin/draws/history', () => {
  test('closed and drawn draws newest first, with dates, days open, sales and the winner; never open ones', async () => {
    const winner = await createUser(t, { name: 'Vencedora Histórica' });
    const other = await createUser(t, { name: 'Outro Comprador' });
    const closed = await makeDraw(t, { status: 'closed', title: 'Histórico fechado' });
    await sell(t, closed.id, other.user.id, [1, 2], { amountCents: 1000 });
    await sell(t, closed.id, winner.user.id, [3], { amountCents: 500, paymentStatus: 'refunded' });
    const drawn = await drawnDraw(t, {
      winnerUserId: winner.user.id,
      number: 9,
      contest: 2610,
      daysAgo: 3,
      openedDaysBefore: 6,
      draw: { title: 'Histórico sorteado' },
    });
    await sell(t, drawn.id, other.user.id, [10]);
    const open = await makeDraw(t, { title: 'Histórico aberto' });

    const r = await api('GET', '/api/admin/draws/history');
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(ids(r)).not.toContain(open.id);
    expect(ids(r).indexOf(drawn.id)).toBeLessThan(ids(r).indexOf(closed.id));
    const d = r.body.items.find((x: { id: number }) => x.id === drawn.id);
    expect(d).toEqual({
      id: drawn.id,
      draw_id: drawn.id,
      title: 'Histórico sorteado',
      status: 'sorteado',
      total_numbers: 100,
      sold: 2, // the winner's 9 and the other buyer's 10
      participants: 2,
      opened_at: drawn.opened_at.toISOString(),
      closed_at: drawn.closed_at!.toISOString(),
      days_open: 6,
      realized_at: drawn.realized_at!.toISOString(),
      contest_number: 2610,
      winner_user_id: winner.user.id,
      winner_name: 'Vencedora Histórica',
      winner_number: 9,
      no_winner: false,
      product_name: null,
      product_link: null,
      redeemed: false,
      result_alert: null,
    });
    const c = r.body.items.find((x: { id: number }) => x.id === closed.id);
    // The refunded sale does not count; no alert holds the closed draw up (RULES W9).
    expect(c).toMatchObject({
      status: 'closed',
      sold: 2,
      participants: 1,
      winner_name: null,
      realized_at: null,
      contest_number: null,
      result_alert: null,
    });
  });

  test('paginates, filters by status, searches by title, draw number or contest', async () => {
    const tag = `Pagina${Date.now()}`;
    const a = await makeDraw(t, { status: 'closed', title: `${tag} A` });
    const b = await drawnDraw(t, { winnerUserId: null, contest: 2990, draw: { title: `${tag} B` } });
    const c = await makeDraw(t, { status: 'closed', title: `${tag} C` });
    const p1 = await api('GET', `/api/admin/draws/history?search=${tag.toLowerCase()}&limit=2`);
    expect(p1.body).toMatchObject({ hasMore: true, limit: 2, offset: 0 });
    expect(ids(p1)).toEqual([c.id, b.id]);
    const p2 = await api('GET', `/api/admin/draws/history?search=${tag}&limit=2&offset=2`);
    expect(p2.body).toMatchObject({ hasMore: false, offset: 2 });
    expect(ids(p2)).toEqual([a.id]);
    expect(ids(await api('GET', `/api/admin/draws/history?search=${tag}&status=sorteado`))).toEqual([b.id]);
    expect(ids(await api('GET', `/api/admin/draws/history?search=${tag}&status=drawn`))).toEqual([b.id]);
    expect(ids(await api('GET', `/api/admin/draws/history?search=${tag}&status=closed`))).toEqual([c.id, a.id]);
    expect(ids(await api('GET', '/api/admin/draws/history?search=2990'))).toEqual([b.id]);
    expect(ids(await api('GET', `/api/admin/draws/history?search=${a.id}`))).toContain(a.id);
    expect(ids(await api('GET', '/api/admin/draws/history?search=%25%25'))).toEqual([]);
    expect(
      (await api('GET', `/api/admin/draws/history?search=${tag}`)).body.items.find((x: { id: number }) => x.id === b.id),
    ).toMatchObject({ no_winner: true, winner_user_id: null });
  });

  test('bad query answers 400 in Portuguese', async () => {
    for (const [qs, message] of [
      ['limit=0', 'O limite mínimo é 1.'],
      ['limit=500', 'O limite máximo é 200.'],
      ['offset=x', 'O deslocamento deve ser um número.'],
      ['status=open', 'Status inválido. Use closed ou sorteado.'],
      [`search=${'x'.repeat(101)}`, 'A busca pode ter no máximo 100 caracteres.'],
    ]) {
      const r = await api('GET', `/api/admin/draws/history?${qs}`);
      expect([qs, r.status, r.body.error, r.body.message]).toEqual([qs, 400, 'validation_error', message]);
    }
  });
});

describe('GET /api/admin/draws/:id/participants', () => {
  test('grouped by user and sorted by name, with contact, numbers, statuses and payment kinds', async () => {
    const zeca = await createUser(t, { name: 'Zeca Último' });
    const ana = await createUser(t, { name: 'ana primeira' });
    const bruno = await createUser(t, { name: 'Bruno Meio' });
    const d = await makeDraw(t, { total_numbers: 100, max_per_user: 0 });
    await sell(t, d.id, zeca.user.id, [50, 5], { source: 'pix', amountCents: 1000 });
    await sell(t, d.id, zeca.user.id, [7], { source: 'voucher' });
    await sell(t, d.id, ana.user.id, [1], { source: 'admin', amountCents: 0 });
    await sell(t, d.id, bruno.user.id, [20], { source: 'pix', amountCents: 500, paymentStatus: 'refunded' });
    // Bruno also holds 21 right now (a live reservation).
    const hold = await t.api('POST', '/api/reservations', { token: bruno.token, body: { draw_id: d.id, numbers: [21] } });
    expect(hold.status).toBe(201);

    const r = await api('GET', `/api/admin/draws/${d.id}/participants`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ draw_id: d.id, status: 'open', sold: 4, hasMore: false, limit: 500, offset: 0 });
    expect(r.body.items.map((p: { name: string }) => p.name)).toEqual(['ana primeira', 'Bruno Meio', 'Zeca Último']);
    const [a, b, z] = r.body.items;
    expect(a).toMatchObject({
      user_id: ana.user.id,
      user_name: 'ana primeira',
      email: ana.email,
      phone: '41999998888',
      quantity: 1,
      numbers: [1],
      statuses: ['approved'],
      payment_kinds: ['admin'],
    });
    expect(z).toMatchObject({ quantity: 3, numbers: [5, 7, 50], statuses: ['approved'] });
    expect(z.payment_kinds.sort()).toEqual(['pix', 'voucher']);
    expect(z.entries.map((e: { number: number; payment_kind: string }) => [e.number, e.payment_kind])).toEqual([
      [5, 'pix'],
      [7, 'voucher'],
      [50, 'pix'],
    ]);
    // The refunded number is listed with its status, not counted; the hold is pending.
    expect(b).toMatchObject({ quantity: 1, numbers: [21] });
    expect(b.statuses.sort()).toEqual(['pending', 'refunded']);
    expect(b.entries).toEqual([
      { number: 20, status: 'refunded', payment_kind: 'pix', payment_id: expect.any(Number) },
      { number: 21, status: 'pending', payment_kind: null, payment_id: null },
    ]);

    const page = await api('GET', `/api/admin/draws/${d.id}/participants?limit=2&offset=1`);
    expect(page.body.items.map((p: { name: string }) => p.name)).toEqual(['Bruno Meio', 'Zeca Último']);
    expect(page.body.hasMore).toBe(false);
    const first = await api('GET', `/api/admin/draws/${d.id}/participants?limit=1`);
    expect(first.body).toMatchObject({ hasMore: true });
  });

  test('a draw without participants answers an empty list; 404 for a missing draw; 400 for a bad id or limit', async () => {
    const d = await makeDraw(t, { status: 'closed' });
    expect((await api('GET', `/api/admin/draws/${d.id}/participants`)).body).toMatchObject({ items: [], sold: 0, hasMore: false });
    const missing = await api('GET', '/api/admin/draws/987654321/participants');
    expect([missing.status, missing.body]).toEqual([404, { error: 'draw_not_found', message: 'Sorteio não encontrado.' }]);
    for (const bad of ['abc', '0', '1.5', '0x10']) {
      const r = await api('GET', `/api/admin/draws/${bad}/participants`);
      expect([bad, r.status, r.body.message]).toEqual([bad, 400, 'Sorteio inválido.']);
    }
    expect((await api('GET', `/api/admin/draws/${d.id}/participants?limit=1001`)).status).toBe(400);
  });

  test('anonymous 401, customer 403', async () => {
    const u = await createUser(t);
    const d = await makeDraw(t, { status: 'closed' });
    expect((await t.api('GET', `/api/admin/draws/${d.id}/participants`)).status).toBe(401);
    expect((await t.api('GET', `/api/admin/draws/${d.id}/participants`, { token: u.token })).status).toBe(403);
    expect((await t.api('GET', '/api/admin/draws/history', { token: u.token })).status).toBe(403);
  });
});
