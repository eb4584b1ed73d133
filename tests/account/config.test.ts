import { createTestContext, createUser, type TestContext } from '../helpers/context';

/** POST /api/config: the admin's draw settings in the customer area. */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1' } });
});
afterAll(() => t.close());

test('an admin saves the banner title and the max numbers per selection; GET /api/config answers them; the change is audited', async () => {
  const admin = await createUser(t, { admin: true });
  // Warm the read cache: the write must drop the cached public config at once.
  expect((await t.api('GET', '/api/config')).status).toBe(200);
  expect((await t.api('GET', '/api/config')).status).toBe(200);
  const r = await t.api('POST', '/api/config', {
    token: admin.token,
    body: { banner_title: '  Escolha seu número da sorte!  ', max_numbers_per_selection: 7 },
  });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ banner_title: 'Escolha seu número da sorte!', max_numbers_per_selection: 7 });
  const pub = await t.api('GET', '/api/config');
  expect(pub.body).toMatchObject({ banner_title: 'Escolha seu número da sorte!', max_numbers_per_selection: 7 });

  // The spec's alias, and one field at a time.
  const alias = await t.api('POST', '/api/config', { token: admin.token, body: { max_select: 3 } });
  expect(alias.body).toMatchObject({ banner_title: 'Escolha seu número da sorte!', max_numbers_per_selection: 3 });
  const title = await t.api('POST', '/api/config', { token: admin.token, body: { banner_title: 'x'.repeat(240) } });
  expect(title.status).toBe(200);
  expect(title.body.max_numbers_per_selection).toBe(3);

  const log = await t.services.db('audit_log').where({ action: 'config.updated', actor_user_id: admin.user.id }).orderBy('id');
  expect(log.map((l) => l.data)).toEqual([
    { banner_title: 'Escolha seu número da sorte!', max_numbers_per_selection: 7 },
    { max_numbers_per_selection: 3 },
    { banner_title: 'x'.repeat(240) },
  ]);
});

test('bad input answers 400 in Portuguese and changes nothing', async () => {
  const admin = await createUser(t, { admin: true });
  const before = (await t.api('GET', '/api/config')).body;
  const cases: Array<[unknown, string]> = [
    [{ banner_title: 'x'.repeat(241) }, 'O título do banner pode ter no máximo 240 caracteres.'],
    [{ max_numbers_per_selection: 0 }, 'O máximo de números por seleção deve ser pelo menos 1.'],
    [{ max_numbers_per_selection: 11 }, 'O máximo de números por seleção pode ser no máximo 10.'],
    [{ max_numbers_per_selection: 2.5 }, 'O máximo de números por seleção deve ser um número inteiro.'],
    [{ max_numbers_per_selection: 'muitos' }, 'O máximo de números por seleção deve ser um número inteiro.'],
    [{ banner_title: 42 }, 'O título do banner deve ser um texto.'],
    [{}, 'Informe o título do banner ou o máximo de números por seleção.'],
  ];
  for (const [payload, message] of cases) {
    const r = await t.api('POST', '/api/config', { token: admin.token, body: payload });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'validation_error', message });
  }
  const notJson = await t.api('POST', '/api/config', { token: admin.token, rawBody: '{' });
  expect(notJson.status).toBe(400);
  expect((await t.api('GET', '/api/config')).body).toEqual(before);
});

test('customers get 403 and anonymous callers 401', async () => {
  const customer = await createUser(t);
  const forbidden = await t.api('POST', '/api/config', { token: customer.token, body: { banner_title: 'hack' } });
  expect(forbidden.status).toBe(403);
  expect(forbidden.body).toMatchObject({ error: 'forbidden', message: 'Acesso restrito a administradores.' });
  const anon = await t.api('POST', '/api/config', { body: { banner_title: 'hack' } });
  expect(anon.status).toBe(401);
  expect((await t.api('GET', '/api/config')).body.banner_title).not.toBe('hack');
});
