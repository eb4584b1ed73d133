import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { createLogger } from '../../src/platform/logger';
import { AUTOPAY_MESSAGES as M } from '../../src/shared/autopay';
import { CARDS, VALID_CNPJ, VALID_CPF, cardBody, tokenize } from './fixtures';

/**
 * The customer's autopay API (account spec §5, §7, §8): the sandbox tokenizer, the
 * profile (get / save / cancel), the claims grid and the card config, with their validation,
 * 401 for anonymous callers and nothing of another user's.
 */
let t: TestContext;
const lines: string[] = [];
beforeAll(async () => {
  t = await createTestContext({
    env: { MERCADOPAGO_PUBLIC_KEY: 'TEST-public-key-123' },
    logger: (config) =>
      createLogger({ level: 'debug', name: `test-${config.queuePrefix}`, destination: { write: (s: string) => void lines.push(s) } }),
  });
});
afterAll(async () => t?.close());

const save = (token: string | undefined, body: unknown) => t.api('POST', '/api/me/autopay', { token, body });

describe('sandbox tokenizer', () => {
  test('a valid card gives a single-use token {id, brand, last4}; the card number is never stored nor logged', async () => {
    const u = await createUser(t);
    const number = '4235647728025682';
    const r = await t.api('POST', '/api/sandbox/card-tokens', { token: u.token, body: cardBody(number, { expiration_year: 35 }) });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ id: expect.stringMatching(/^sbxtok_[0-9a-f]{32}$/), brand: 'visa', last4: '5682' });
    expect(r.headers.get('cache-control')).toBe('no-store');
    const row = await t.services.db('sandbox_card_tokens').where({ id: r.body.id }).first();
    expect(row).toMatchObject({
      user_id: u.user.id,
      brand: 'visa',
      last4: '5682',
      expiration_month: 12,
      expiration_year: 2035,
      holder_name: 'MARIA DA SILVA',
      doc_number: VALID_CPF,
      outcome: 'approve',
    });
    // Save it, then look for the number anywhere in the database and the logs.
    const s = await save(u.token, {
      active: true,
      numbers: [1],
      holder_name: 'MARIA DA SILVA',
      doc_number: VALID_CPF,
      card_token: r.body.id,
    });
    expect(s.status).toBe(200);
    const tables: Array<{ table_name: string }> = (
      await t.services.db.raw(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
      )
    ).rows;
    for (const { table_name } of tables) {
      const dump = await t.services.db.raw(`SELECT coalesce(string_agg(x::text, E'\\n'), '') AS d FROM "${table_name}" x`);
      expect(dump.rows[0].d).not.toContain(number);
      expect(dump.rows[0].d).not.toContain('4235 6477');
    }
    expect(lines.join('\n')).not.toContain(number);
    expect(lines.length).toBeGreaterThan(0); // the capture works (the requests were logged)
  });

  test('brands, amex CVV of 4 digits, CNPJ holder, spaces in the number', async () => {
    const u = await createUser(t);
    const amex = await t.api('POST', '/api/sandbox/card-tokens', {
      token: u.token,
      body: cardBody(CARDS.amex, { doc_number: '11.222.333/0001-81' }),
    });
    expect(amex.status).toBe(201);
    expect(amex.body).toMatchObject({ brand: 'amex', last4: '0005' });
    const master = await t.api('POST', '/api/sandbox/card-tokens', { token: u.token, body: cardBody('5555 5555 5555 4444') });
    expect(master.body).toMatchObject({ brand: 'master', last4: '4444' });
    const row = await t.services.db('sandbox_card_tokens').where({ id: amex.body.id }).first();
    expect(row.doc_number).toBe(VALID_CNPJ);
  });

  test.each([
    ['Luhn', { card_number: '4111111111111112' }, 'card_number', M.cardNumberInvalid],
    ['too short', { card_number: '4111' }, 'card_number', M.cardNumberInvalid],
    ['letters', { card_number: '4111abcd11111111' }, 'card_number', M.cardNumberInvalid],
    ['expired', { expiration_month: 1, expiration_year: 2020 }, 'expiration_year', M.cardExpired],
    ['month 13', { expiration_month: 13 }, 'expiration_month', M.expiryInvalid],
    ['CVV of 4 on visa', { security_code: '1234' }, 'security_code', M.cvvInvalid],
    ['CVV of 3 on amex', { card_number: CARDS.amex, security_code: '123' }, 'security_code', M.cvvInvalid],
    ['no holder', { cardholder_name: ' ' }, 'cardholder_name', M.holderRequired],
    ['bad CPF', { doc_number: '12345678900' }, 'doc_number', M.docInvalid],
    ['bad CNPJ', { doc_number: '11222333000180' }, 'doc_number', M.docInvalid],
    ['missing field', { security_code: undefined }, 'security_code', M.cvvInvalid],
  ])('refuses %s with 400 and the Portuguese message, never echoing the number', async (_name, patch, path, message) => {
    const u = await createUser(t);
    const r = await t.api('POST', '/api/sandbox/card-tokens', { token: u.token, body: cardBody(CARDS.approve, patch) });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('validation_error');
    expect(r.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ path, message })]));
    expect(r.text).not.toContain('41111111111');
    expect(await t.services.db('sandbox_card_tokens').where({ user_id: u.user.id })).toHaveLength(0);
  });

  test('anonymous: 401; a non-object body: 400', async () => {
    const r = await t.api('POST', '/api/sandbox/card-tokens', { body: cardBody() });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('unauthenticated');
    const u = await createUser(t);
    const bad = await t.api('POST', '/api/sandbox/card-tokens', { token: u.token, rawBody: '[1,2]' });
    expect(bad.status).toBe(400);
  });
});

test('card config: the provider and the public key, never the access token', async () => {
  const r = await t.api('GET', '/api/autopay/card-config');
  expect(r.status).toBe(200);
  expect(r.body).toEqual({ provider: 'sandbox', public_key: null });
});

describe('profile', () => {
  test('empty profile, save with a card, read back masked, update numbers only, cancel', async () => {
    const u = await createUser(t);
    const empty = await t.api('GET', '/api/me/autopay', { token: u.token });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({
      active: false,
      numbers: [],
      brand: null,
      last4: null,
      holder_name: null,
      doc_number: null,
      has_card: false,
    });

    const tok = await tokenize(t, u.token, CARDS.master);
    const s = await save(u.token, {
      active: true,
      numbers: [42, 7, '03'],
      holder_name: 'MARIA DA SILVA',
      doc_number: '529.982.247-25',
      card_token: tok.id,
    });
    expect(s.status).toBe(200);
    expect(s.body).toEqual({ card: { has_card: true, brand: 'master', last4: '4444' }, active: true, numbers: [3, 7, 42] });

    const g = await t.api('GET', '/api/me/autopay', { token: u.token });
    expect(g.body).toEqual({
      active: true,
      numbers: [3, 7, 42],
      brand: 'master',
      last4: '4444',
      holder_name: 'MARIA DA SILVA',
      doc_number: '***.982.247-**',
      has_card: true,
    });

    // The dialog sends back what it shows (masked document, no token): only the numbers change.
    const s2 = await save(u.token, { active: true, numbers: [8], holder_name: 'MARIA DA SILVA', doc_number: '***.982.247-**' });
    expect(s2.status).toBe(200);
    expect(s2.body.card).toEqual({ has_card: true, brand: 'master', last4: '4444' });
    expect((await t.api('GET', '/api/me/autopay', { token: u.token })).body).toMatchObject({ numbers: [8], doc_number: '***.982.247-**' });

    // Inactive: kept, but the numbers are nobody's claim.
    const off = await save(u.token, { active: false, numbers: [8] });
    expect(off.body.active).toBe(false);
    const other = await createUser(t);
    expect((await t.api('GET', '/api/autopay/claims', { token: other.token })).body.taken).not.toContain(8);

    const c = await t.api('POST', '/api/me/autopay/cancel', { token: u.token });
    expect(c.status).toBe(200);
    expect(c.body).toEqual({ card: { has_card: false, brand: null, last4: null }, active: false, numbers: [] });
    expect((await t.api('GET', '/api/me/autopay', { token: u.token })).body).toEqual({
      active: false,
      numbers: [],
      brand: null,
      last4: null,
      holder_name: null,
      doc_number: null,
      has_card: false,
    });
    expect(
      await t.services.db('audit_log').where({ entity: 'autopay_profile', actor_user_id: u.user.id }).orderBy('id').pluck('action'),
    ).toEqual(['autopay.saved', 'autopay.saved', 'autopay.saved', 'autopay.cancelled']);
  });

  test.each([
    ['no numbers', { numbers: [] }, M.pickOne],
    ['numbers missing', { numbers: undefined }, M.pickOne],
    ['21 numbers', { numbers: Array.from({ length: 21 }, (_, i) => i) }, M.tooMany],
    ['100', { numbers: [100] }, M.numberRange],
    ['-1', { numbers: [-1] }, M.numberRange],
    ['1.5', { numbers: [1.5] }, M.numberRange],
    ['repeated', { numbers: [4, 4] }, M.numbersRepeated],
    ['active not boolean', { active: 'sim' }, 'Informe se a compra automática está ativa (true ou false).'],
  ])('validation: %s → 400', async (_n, patch, message) => {
    const u = await createUser(t);
    const r = await save(u.token, { active: false, numbers: [1], ...patch });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'validation_error', message });
  });

  test('card rules: a token needs holder and document (spec §8), a bad document, activation needs a card, a used or foreign token', async () => {
    const u = await createUser(t);
    const tok = await tokenize(t, u.token);
    const incomplete = await save(u.token, { active: true, numbers: [91], card_token: tok.id, holder_name: '', doc_number: VALID_CPF });
    expect(incomplete.status).toBe(400);
    expect(incomplete.body).toMatchObject({ error: 'card_incomplete', message: M.cardIncomplete });
    const badDoc = await save(u.token, {
      active: true,
      numbers: [91],
      card_token: tok.id,
      holder_name: 'ANA',
      doc_number: '111.111.111-11',
    });
    expect(badDoc.status).toBe(400);
    expect(badDoc.body.message).toBe(M.docInvalid);
    const noCard = await save(u.token, { active: true, numbers: [91] });
    expect(noCard.status).toBe(400);
    expect(noCard.body).toMatchObject({ error: 'card_required', message: M.needCard });
    // Nothing was saved by the refused calls.
    expect((await t.api('GET', '/api/me/autopay', { token: u.token })).body.numbers).toEqual([]);

    // Another user's token is unusable; the owner's works once.
    const thief = await createUser(t);
    const stolen = await save(thief.token, {
      active: true,
      numbers: [92],
      card_token: tok.id,
      holder_name: 'LADRAO',
      doc_number: VALID_CPF,
    });
    expect(stolen.status).toBe(400);
    expect(stolen.body).toMatchObject({ error: 'card_token_invalid', message: M.tokenInvalid });
    const ok = await save(u.token, { active: true, numbers: [91], card_token: tok.id, holder_name: 'ANA', doc_number: VALID_CPF });
    expect(ok.status).toBe(200);
    const again = await save(u.token, { active: true, numbers: [91], card_token: tok.id, holder_name: 'ANA', doc_number: VALID_CPF });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('card_token_invalid');
    // An expired token too.
    const old = await tokenize(t, u.token);
    await t.services
      .db('sandbox_card_tokens')
      .where({ id: old.id })
      .update({ expires_at: t.services.db.raw(`now() - interval '1 second'`) });
    const late = await save(u.token, { active: true, numbers: [91], card_token: old.id, holder_name: 'ANA', doc_number: VALID_CPF });
    expect(late.body.error).toBe('card_token_invalid');
  });

  test('a number captive to someone else: 409 with the conflicting numbers; claims show taken and mine', async () => {
    const a = await createUser(t);
    const b = await createUser(t);
    const ta = await tokenize(t, a.token);
    expect(
      (await save(a.token, { active: true, numbers: [50, 51, 52], holder_name: 'A', doc_number: VALID_CPF, card_token: ta.id })).status,
    ).toBe(200);
    const tb = await tokenize(t, b.token);
    const r = await save(b.token, { active: true, numbers: [49, 51, 52], holder_name: 'B', doc_number: VALID_CPF, card_token: tb.id });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ error: 'numbers_conflict', conflicts: [51, 52] });
    expect(r.body.message).toContain('51, 52');
    // The token was not spent by the refused save.
    expect((await t.services.db('sandbox_card_tokens').where({ id: tb.id }).first()).consumed_at).toBeNull();

    const cb = await t.api('GET', '/api/autopay/claims', { token: b.token });
    expect(cb.status).toBe(200);
    expect(cb.body.taken).toEqual(expect.arrayContaining([50, 51, 52]));
    expect(cb.body.mine).toEqual([]);
    const ca = await t.api('GET', '/api/autopay/claims', { token: a.token });
    expect(ca.body.mine).toEqual([50, 51, 52]);
    expect(ca.body.taken).not.toEqual(expect.arrayContaining([50]));
    // B reads only its own profile.
    expect((await t.api('GET', '/api/me/autopay', { token: b.token })).body).toMatchObject({ numbers: [], has_card: false });
    // After A cancels, B gets them.
    await t.api('POST', '/api/me/autopay/cancel', { token: a.token });
    expect(
      (await save(b.token, { active: true, numbers: [49, 51, 52], holder_name: 'B', doc_number: VALID_CPF, card_token: tb.id })).status,
    ).toBe(200);
  });

  test('anonymous: 401 on every customer route', async () => {
    for (const [method, path] of [
      ['GET', '/api/me/autopay'],
      ['POST', '/api/me/autopay'],
      ['POST', '/api/me/autopay/cancel'],
      ['GET', '/api/autopay/claims'],
    ] as const) {
      const r = await t.api(method, path, method === 'POST' ? { body: { active: true, numbers: [1] } } : {});
      expect([method, path, r.status, r.body.error]).toEqual([method, path, 401, 'unauthenticated']);
    }
  });
});

describe('admin runs', () => {
  test('customer 403, anonymous 401, admin gets a page; bad query 400', async () => {
    const admin = await createUser(t, { admin: true });
    const customer = await createUser(t);
    expect((await t.api('GET', '/api/admin/autopay/runs')).status).toBe(401);
    expect((await t.api('GET', '/api/admin/autopay/runs', { token: customer.token })).status).toBe(403);
    const r = await t.api('GET', '/api/admin/autopay/runs?limit=5', { token: admin.token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ items: expect.any(Array), hasMore: expect.any(Boolean), limit: 5, offset: 0 });
    expect(r.headers.get('cache-control')).toBe('no-store');
    const bad = await t.api('GET', '/api/admin/autopay/runs?draw_id=abc', { token: admin.token });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Sorteio inválido.');
  });
});
