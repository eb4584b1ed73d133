import { createUser, type TestContext } from '../helpers/context';
import { adminContext, type TestUser } from './setup';
import { makeDraw } from '../draws/fixtures';
import { drawnDraw } from './history-fixtures';

/**
 * Winners (the console's '/admin/vencedores'): GET /api/admin/winners lists drawn draws that have a
 * winner; PATCH /api/admin/winners/{drawId} edits the prize (name, http(s) link, redeemed) in one
 * transaction with an audit entry holding before/after.
 */
let t: TestContext;
let admin: TestUser;
beforeAll(async () => ({ t, admin } = await adminContext({ name: 'Admin Vencedores' })));
afterAll(() => t.close());

const api = (method: string, path: string, body?: unknown) => t.api(method, path, { token: admin.token, body });
const prizeAudits = (drawId: number) =>
  t.services
    .db('audit_log')
    .where({ entity: 'draw', entity_id: String(drawId), action: 'winner.prize_updated' })
    .orderBy('id')
    .select('actor_user_id', 'actor', 'data');

describe('GET /api/admin/winners', () => {
  test('lists drawn draws with a winner (newest first) with contact, number, contest, days since and prize; no closed or winnerless draw', async () => {
    const ana = await createUser(t, { name: 'Ana Winner' });
    const bia = await createUser(t, { name: 'Bia Winner' });
    const older = await drawnDraw(t, { winnerUserId: ana.user.id, number: 42, contest: 2650, daysAgo: 10 });
    const newer = await drawnDraw(t, { winnerUserId: bia.user.id, number: 3, contest: 2651, daysAgo: 2 });
    const none = await drawnDraw(t, { winnerUserId: null, contest: 2652, daysAgo: 1 });
    const closed = await makeDraw(t, { status: 'closed' });

    const r = await api('GET', '/api/admin/winners');
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    const ids = r.body.winners.map((w: { draw_id: number }) => w.draw_id);
    expect(ids).not.toContain(none.id);
    expect(ids).not.toContain(closed.id);
    expect(ids.indexOf(newer.id)).toBeLessThan(ids.indexOf(older.id));
    const w = r.body.winners.find((x: { draw_id: number }) => x.draw_id === older.id);
    expect(w).toEqual({
      draw_id: older.id,
      id: older.id,
      title: older.title,
      contest_number: 2650,
      winner_user_id: ana.user.id,
      winner_name: 'Ana Winner',
      winner_email: ana.email,
      winner_phone: '41999998888',
      winner_number: 42,
      realized_at: older.realized_at!.toISOString(),
      status: 'NÃO RESGATADO',
      redeemed: false,
      days_since: 10,
      product_name: null,
      product_link: null,
    });
    expect(r.body).toMatchObject({ hasMore: false, limit: 50, offset: 0 });
  });

  test('paginates with limit/offset/hasMore, searches by name, contest or draw number, filters by redeemed', async () => {
    const who = await createUser(t, { name: 'Zuleica Paginada' });
    const a = await drawnDraw(t, { winnerUserId: who.user.id, contest: 2701, daysAgo: 30 });
    const b = await drawnDraw(t, { winnerUserId: who.user.id, contest: 2702, daysAgo: 29 });
    const c = await drawnDraw(t, { winnerUserId: who.user.id, contest: 2703, daysAgo: 28 });
    const p1 = await api('GET', '/api/admin/winners?search=zuleica&limit=2');
    expect(p1.body).toMatchObject({ hasMore: true, limit: 2, offset: 0 });
    expect(p1.body.winners.map((w: { draw_id: number }) => w.draw_id)).toEqual([c.id, b.id]);
    const p2 = await api('GET', '/api/admin/winners?search=zuleica&limit=2&offset=2');
    expect(p2.body).toMatchObject({ hasMore: false, offset: 2 });
    expect(p2.body.winners.map((w: { draw_id: number }) => w.draw_id)).toEqual([a.id]);

    expect((await api('GET', '/api/admin/winners?search=2702')).body.winners.map((w: { draw_id: number }) => w.draw_id)).toEqual([b.id]);
    expect((await api('GET', `/api/admin/winners?search=${a.id}`)).body.winners.map((w: { draw_id: number }) => w.draw_id)).toContain(a.id);
    // A pattern character is text, not a wildcard.
    expect((await api('GET', '/api/admin/winners?search=%25')).body.winners).toEqual([]);

    await api('PATCH', `/api/admin/winners/${b.id}`, { redeemed: true });
    const redeemed = await api('GET', '/api/admin/winners?search=zuleica&redeemed=1');
    expect(redeemed.body.winners.map((w: { draw_id: number }) => w.draw_id)).toEqual([b.id]);
    const open = await api('GET', '/api/admin/winners?search=zuleica&redeemed=0');
    expect(open.body.winners.map((w: { draw_id: number }) => w.draw_id)).toEqual([c.id, a.id]);
  });

  test('bad query answers 400 in Portuguese', async () => {
    for (const [qs, message] of [
      ['limit=0', 'O limite mínimo é 1.'],
      ['limit=201', 'O limite máximo é 200.'],
      ['limit=abc', 'O limite deve ser um número.'],
      ['offset=-1', 'O deslocamento não pode ser negativo.'],
      ['redeemed=talvez', 'Use redeemed=1 ou redeemed=0.'],
    ]) {
      const r = await api('GET', `/api/admin/winners?${qs}`);
      expect([qs, r.status, r.body.error]).toEqual([qs, 400, 'validation_error']);
      expect(r.body.message).toContain(message);
    }
  });
});

describe('PATCH /api/admin/winners/:drawId', () => {
  test('sets product name, link and redeemed; answers the winner row; audits before/after; a repeat writes nothing', async () => {
    const u = await createUser(t, { name: 'Carla Prêmio' });
    const d = await drawnDraw(t, { winnerUserId: u.user.id, number: 55, daysAgo: 4 });
    const r = await api('PATCH', `/api/admin/winners/${d.id}`, {
      product_name: '  Kindle 11ª geração ',
      product_link: 'https://loja.example.com/kindle?x=1',
      redeemed: true,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      draw_id: d.id,
      winner_name: 'Carla Prêmio',
      winner_number: 55,
      product_name: 'Kindle 11ª geração',
      product_link: 'https://loja.example.com/kindle?x=1',
      redeemed: true,
      status: 'RESGATADO',
      days_since: 4,
    });
    const row = await t.services.db('draws').where({ id: d.id }).first();
    expect(row).toMatchObject({ product_name: 'Kindle 11ª geração', product_link: 'https://loja.example.com/kindle?x=1', redeemed: true });
    const log = await prizeAudits(d.id);
    expect(log).toHaveLength(1);
    expect(log[0]).toEqual({
      actor_user_id: admin.user.id,
      actor: 'admin',
      data: {
        before: { product_name: null, product_link: null, redeemed: false },
        after: { product_name: 'Kindle 11ª geração', product_link: 'https://loja.example.com/kindle?x=1', redeemed: true },
        winner_user_id: u.user.id,
        winner_number: 55,
      },
    });

    // Partial: only redeemed; the rest stays. Then the same again: no change, no audit.
    const back = await api('PATCH', `/api/admin/winners/${d.id}`, { redeemed: false });
    expect(back.body).toMatchObject({ redeemed: false, status: 'NÃO RESGATADO', product_name: 'Kindle 11ª geração' });
    const same = await api('PATCH', `/api/admin/winners/${d.id}`, { redeemed: false });
    expect(same.status).toBe(200);
    expect(await prizeAudits(d.id)).toHaveLength(2);

    // '' or null clears a field.
    const cleared = await api('PATCH', `/api/admin/winners/${d.id}`, { product_link: '', product_name: null });
    expect(cleared.body).toMatchObject({ product_name: null, product_link: null });
    expect((await api('GET', `/api/admin/winners/${d.id}`)).body).toMatchObject({
      product_name: null,
      product_link: null,
      redeemed: false,
    });
  });

  test('invalid bodies answer 400 in Portuguese and change nothing', async () => {
    const u = await createUser(t);
    const d = await drawnDraw(t, { winnerUserId: u.user.id });
    const cases: Array<[unknown, string]> = [
      [{}, 'Nada para alterar: envie product_name, product_link ou redeemed.'],
      [{ product_link: 'javascript:alert(1)' }, 'O link do produto deve ser um endereço http:// ou https:// válido.'],
      [{ product_link: 'ftp://arquivos.example.com/x' }, 'O link do produto deve ser um endereço http:// ou https:// válido.'],
      [{ product_link: 'loja.example.com' }, 'O link do produto deve ser um endereço http:// ou https:// válido.'],
      [{ product_link: 12 }, 'O link do produto deve ser um endereço http:// ou https:// válido.'],
      [{ product_link: `https://x.example.com/${'a'.repeat(2000)}` }, 'O link do produto pode ter no máximo 2000 caracteres.'],
      [{ product_name: 'x'.repeat(201) }, 'O nome do produto pode ter no máximo 200 caracteres.'],
      [{ product_name: 5 }, 'O nome do produto deve ser um texto.'],
      [{ redeemed: 'sim' }, 'Informe verdadeiro ou falso em redeemed.'],
      [[1], 'Envie um objeto JSON.'],
    ];
    for (const [body, message] of cases) {
      const r = await api('PATCH', `/api/admin/winners/${d.id}`, body);
      expect([body, r.status, r.body.error]).toEqual([body, 400, 'validation_error']);
      expect([body, r.body.message]).toEqual([body, expect.stringContaining(message)]);
    }
    const bad = await t.api('PATCH', `/api/admin/winners/${d.id}`, { token: admin.token, rawBody: '{"redeemed":' });
    expect(bad.status).toBe(400);
    const badId = await api('PATCH', '/api/admin/winners/abc', { redeemed: true });
    expect(badId.status).toBe(400);
    expect(badId.body).toMatchObject({ error: 'validation_error', message: expect.stringContaining('Sorteio inválido.') });
    expect(await prizeAudits(d.id)).toHaveLength(0);
    expect(await t.services.db('draws').where({ id: d.id }).first()).toMatchObject({
      product_name: null,
      product_link: null,
      redeemed: false,
    });
  });

  test('404 for a missing draw, a closed draw and a drawn draw without winner', async () => {
    const closed = await makeDraw(t, { status: 'closed' });
    const none = await drawnDraw(t, { winnerUserId: null });
    for (const id of [987654321, closed.id, none.id]) {
      const r = await api('PATCH', `/api/admin/winners/${id}`, { redeemed: true });
      expect([id, r.status, r.body]).toEqual([
        id,
        404,
        { error: 'winner_not_found', message: 'Vencedor não encontrado: este sorteio não existe ou ainda não tem vencedor.' },
      ]);
      expect((await api('GET', `/api/admin/winners/${id}`)).status).toBe(404);
    }
    expect(await t.services.db('draws').where({ id: none.id }).first()).toMatchObject({ redeemed: false });
  });

  test('anonymous 401 and customer 403, even the winner; nothing written', async () => {
    const u = await createUser(t);
    const d = await drawnDraw(t, { winnerUserId: u.user.id });
    const anon = await t.api('PATCH', `/api/admin/winners/${d.id}`, { body: { redeemed: true } });
    expect(anon.status).toBe(401);
    const cust = await t.api('PATCH', `/api/admin/winners/${d.id}`, { token: u.token, body: { redeemed: true } });
    expect(cust.status).toBe(403);
    expect((await t.api('GET', '/api/admin/winners', { token: u.token })).status).toBe(403);
    expect(await prizeAudits(d.id)).toHaveLength(0);
  });

  test('parallel edits serialize on the draw row: every request answers 200 and the audit chain is consistent', async () => {
    const u = await createUser(t);
    const d = await drawnDraw(t, { winnerUserId: u.user.id });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        api('PATCH', `/api/admin/winners/${d.id}`, { product_name: `Prêmio ${i}`, redeemed: i % 2 === 0 }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    const log = await prizeAudits(d.id);
    expect(log.length).toBeGreaterThanOrEqual(1);
    // Each entry's before is the previous entry's after: no lost update.
    for (let i = 1; i < log.length; i++) expect(log[i].data.before).toEqual(log[i - 1].data.after);
    const row = await t.services.db('draws').where({ id: d.id }).first();
    expect(log[log.length - 1].data.after).toEqual({
      product_name: row.product_name,
      product_link: row.product_link,
      redeemed: row.redeemed,
    });
  });
});
