import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { fakeSmtp, type FakeSmtp } from '../helpers/smtp';
import { brDate, REAL_CONTESTS } from '../helpers/fake-lottery';
import { makeDraw, sellDirectly } from '../draws/fixtures';
import { claimDeadline, deadlineText } from '../../src/shared/prize';

/**
 * The winner's prize and how to claim it (RULES W10, issue 26): the store's prize contact set by an
 * admin (validated, audited, admins only), then a decided draw: the winner's e-mail, /me/draw's
 * board and GET /api/me/prizes show the prize (name, amount, link), the deadline computed from when
 * the result was recorded (90 days, the terms) and the contact; nobody else sees the claim.
 */
let t: TestContext;
let smtp: FakeSmtp;
beforeAll(async () => {
  smtp = await fakeSmtp();
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1', SMTP_URL: smtp.url } });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

const CONTACT = '/api/admin/settings/prize-contact';

/** 20:00 Brasília, `days` days ago. */
function day(days: number): Date {
  const d = new Date(Date.now() - days * 86_400_000);
  const [dd, mm, yyyy] = brDate(d).split('/').map(Number);
  return new Date(Date.UTC(yyyy, mm - 1, dd, 23));
}

describe('the prize contact in the console (GET/PUT /api/admin/settings/prize-contact)', () => {
  test('an admin sets the WhatsApp and e-mail (normalised), reads them back, and the change is audited', async () => {
    const admin = await createUser(t, { admin: true });
    const put = await t.api('PUT', CONTACT, {
      token: admin.token,
      body: { whatsapp: '(41) 99876-5432', email: ' Premios@CotaVerde.test ' },
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ whatsapp: '5541998765432', email: 'premios@cotaverde.test' });
    const get = await t.api('GET', CONTACT, { token: admin.token });
    expect(get.status).toBe(200);
    expect(get.body).toEqual(put.body);
    const row = await t.services
      .db('audit_log')
      .where({ action: 'config.updated', actor_user_id: admin.user.id })
      .orderBy('id', 'desc')
      .first();
    expect(row.entity).toBe('app_config');
    expect(row.data).toMatchObject({ prize_contact_whatsapp: '5541998765432', prize_contact_email: 'premios@cotaverde.test' });

    // One field at a time; '' clears it.
    const cleared = await t.api('PUT', CONTACT, { token: admin.token, body: { email: '' } });
    expect(cleared.body).toEqual({ whatsapp: '5541998765432', email: null });
    await t.api('PUT', CONTACT, { token: admin.token, body: { email: 'premios@cotaverde.test' } });
  });

  test('bad input is a 400 with a Portuguese message, and nothing changes', async () => {
    const admin = await createUser(t, { admin: true });
    const before = (await t.api('GET', CONTACT, { token: admin.token })).body;
    const cases: Array<[unknown, RegExp]> = [
      [{ whatsapp: '123' }, /WhatsApp com DDD/],
      [{ whatsapp: '4199999888a' }, /WhatsApp com DDD/],
      [{ whatsapp: 41999998888 }, /WhatsApp com DDD/],
      [{ email: 'não-é-email' }, /e-mail válido/],
      [{}, /Informe o WhatsApp ou o e-mail/],
      [{ whatsapp: '41999998888', extra: 1 }, /Só são aceitos/],
      [[1, 2], /objeto JSON/],
    ];
    for (const [body, message] of cases) {
      const r = await t.api('PUT', CONTACT, { token: admin.token, body });
      expect({ body, status: r.status, error: r.body.error }).toEqual({ body, status: 400, error: 'validation_error' });
      expect(r.body.message).toMatch(message);
    }
    expect((await t.api('GET', CONTACT, { token: admin.token })).body).toEqual(before);
  });

  test('anonymous callers get 401 and customers 403', async () => {
    const u = await createUser(t);
    expect((await t.api('GET', CONTACT)).status).toBe(401);
    expect((await t.api('PUT', CONTACT, { body: { email: 'a@b.co' } })).status).toBe(401);
    const get = await t.api('GET', CONTACT, { token: u.token });
    const put = await t.api('PUT', CONTACT, { token: u.token, body: { email: 'a@b.co' } });
    expect([get.status, put.status]).toEqual([403, 403]);
    expect(put.body.error).toBeTruthy();
  });
});

describe("a decided draw: the winner's prize, deadline and contact", () => {
  test('the e-mail, the board and /api/me/prizes show them to the winner, and to nobody else', async () => {
    const admin = await createUser(t, { admin: true });
    await t.api('PUT', CONTACT, { token: admin.token, body: { whatsapp: '5541998765432', email: 'premios@cotaverde.test' } });
    const winner = await createUser(t, { name: 'Renata Lima' });
    const loser = await createUser(t);
    const stranger = await createUser(t);
    const numbers = REAL_CONTESTS['2601'].map(Number); // the last drawn is 54
    const draw = await makeDraw(t, { status: 'open', prize_cents: 50_000, title: 'Sorteio do Guia' });
    await sellDirectly(t, draw.id, winner.user.id, [54]);
    await sellDirectly(t, draw.id, loser.user.id, [1]);
    const D = day(3);
    await t.services
      .db('draws')
      .where({ id: draw.id })
      .update({ status: 'closed', closed_at: new Date(D.getTime() - 3600_000) });
    const out = await t.services.results.record(
      { contest_number: 2601, numbers, drawn_at: D },
      { actorUserId: null, actor: 'cli', source: 'cli' },
    );
    expect(out.decided).toEqual([expect.objectContaining({ draw_id: draw.id, winning_number: 54, winner_user_id: winner.user.id })]);
    const row = await t.services.db('draws').where({ id: draw.id }).first();
    const deadline = claimDeadline(row.realized_at);
    // 90 days from the day the result was recorded (not from the contest three days earlier).
    expect(deadline.getTime() - new Date(row.realized_at).getTime()).toBeGreaterThan(90 * 86_400_000);
    expect(deadline.getTime() - new Date(row.realized_at).getTime()).toBeLessThanOrEqual(91 * 86_400_000);

    // --- the e-mail, as the SMTP server received it ---
    const mail = await t.services.db('mail_outbox').where({ to_address: winner.email, template: 'draw_won' }).first();
    expect(await t.services.mailer.deliver(mail.id)).toBe('sent');
    const sent = smtp.mails.filter((m) => m.to.includes(winner.email));
    expect(sent).toHaveLength(1);
    const text = sent[0].text;
    expect(sent[0].subject).toBe('Você foi contemplado no sorteio "Sorteio do Guia"!');
    expect(text).toContain('Olá, Renata!');
    expect(text).toMatch(/Seu prêmio: Prêmio do sorteio “Sorteio do Guia” \(R\$\s500,00, valor líquido\)\./);
    expect(text).toContain(`Veja o prêmio e o sorteio: http://cotaverde.test/me/draw/${draw.id}`);
    expect(text).toContain(`Prazo para resgatar: ${deadlineText(deadline)}.`);
    expect(text).toContain('Como resgatar: Fale com a loja pelo WhatsApp ou por e-mail');
    expect(text).toContain('WhatsApp: +55 (41) 99876-5432 (https://wa.me/5541998765432)');
    expect(text).toContain('E-mail: premios@cotaverde.test');

    // --- the admin records the prize item: its name and link replace the words ---
    const patch = await t.api('PATCH', `/api/admin/winners/${draw.id}`, {
      token: admin.token,
      body: { product_name: 'Smartphone Galaxy', product_link: 'https://loja.example/galaxy' },
    });
    expect(patch.status).toBe(200);

    // --- the winner's board ---
    const mine = await t.api('GET', `/api/me/draws/${draw.id}/board`, { token: winner.token });
    expect(mine.status).toBe(200);
    expect(mine.body.draw.prize).toEqual({ name: 'Smartphone Galaxy', amount_cents: 50_000, link: 'https://loja.example/galaxy' });
    expect(mine.body.draw.claim).toEqual({
      deadline: deadline.toISOString(),
      days_left: expect.any(Number),
      expired: false,
      redeemed: false,
      how: expect.stringContaining('documento de identificação com foto'),
      contact: { whatsapp: '5541998765432', email: 'premios@cotaverde.test' },
    });
    expect([89, 90]).toContain(mine.body.draw.claim.days_left);

    // --- GET /api/me/prizes ---
    const prizes = await t.api('GET', '/api/me/prizes', { token: winner.token });
    expect(prizes.status).toBe(200);
    expect(prizes.body.items).toEqual([
      {
        draw_id: draw.id,
        draw_title: 'Sorteio do Guia',
        winner_number: 54,
        realized_at: new Date(row.realized_at).toISOString(),
        prize: mine.body.draw.prize,
        claim: mine.body.draw.claim,
        draw_path: `/me/draw/${draw.id}`,
      },
    ]);

    // --- nobody else sees the claim: a participant, a stranger, an admin ---
    for (const other of [loser, stranger, admin]) {
      const board = await t.api('GET', `/api/me/draws/${draw.id}/board`, { token: other.token });
      expect(board.status).toBe(200);
      expect(board.body.draw.claim).toBeNull();
      // The prize itself is what every viewer of the draw sees.
      expect(board.body.draw.prize).toEqual(mine.body.draw.prize);
      expect(JSON.stringify(board.body)).not.toMatch(/5541998765432|premios@cotaverde/);
      const theirs = await t.api('GET', '/api/me/prizes', { token: other.token });
      expect(theirs.status).toBe(200);
      expect(theirs.body.items).toEqual([]);
    }
    expect((await t.api('GET', '/api/me/prizes')).status).toBe(401);

    // --- delivered: the claim says so ---
    await t.api('PATCH', `/api/admin/winners/${draw.id}`, { token: admin.token, body: { redeemed: true } });
    const after = await t.api('GET', '/api/me/prizes', { token: winner.token });
    expect(after.body.items[0].claim.redeemed).toBe(true);
  });

  test('a claim whose 90 days have passed is expired, with no days left', async () => {
    const u = await createUser(t);
    const draw = await makeDraw(t, { status: 'open', prize_cents: 12_345 });
    await sellDirectly(t, draw.id, u.user.id, [7]);
    await t.services
      .db('draws')
      .where({ id: draw.id })
      .update({ status: 'drawn', winner_user_id: u.user.id, winner_number: 7, realized_at: new Date(Date.now() - 95 * 86_400_000) });
    const r = await t.api('GET', '/api/me/prizes', { token: u.token });
    expect(r.body.items[0]).toMatchObject({ prize: { amount_cents: 12_345 }, claim: { expired: true, days_left: 0 } });
  });
});
