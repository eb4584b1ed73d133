import { createTestContext, type TestContext } from '../helpers/context';
import { birthdateYearsAgo, EMPTY_REGISTRATION_MESSAGES, freshIp, publicUser, registration, uniqueEmail } from './fixtures';
import { uniqueCpf } from '../helpers/cpf';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

const ACCOUNT_EXISTS_BODY = {
  error: 'account_exists',
  message: 'Já existe uma conta com este e-mail ou CPF. Faça login ou, se esqueceu a senha, use “Esqueci minha senha” na tela de login.',
};

const register = (body: unknown) => t.api('POST', '/api/auth/register', { body, headers: freshIp() });

function expectValidationError(r: { status: number; body: any; text: string }, message: string, field?: string) {
  expect(r.status).toBe(400);
  expect(r.body).toEqual({ error: 'validation_error', message, details: expect.any(Array) });
  if (field) expect(r.body.details).toContainEqual(expect.objectContaining({ path: field, message }));
  expect(r.text).not.toMatch(/\bat .+\.(ts|js):\d+/); // never a stack trace
}

describe('POST /api/auth/register', () => {
  test('creates the account and answers 201 {user} without the password hash', async () => {
    const body = registration({
      email: 'Nova.Pessoa@Example.COM',
      cpf: '529.982.247-25',
      phone: '(41) 98888-7777',
      name: '  Nova Pessoa  ',
    });
    const r = await register(body);
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      user: publicUser({
        id: expect.any(Number),
        name: 'Nova Pessoa',
        email: 'nova.pessoa@example.com',
        phone: '41988887777',
        cpf: '52998224725',
      }),
    });
    expect(r.text).not.toContain('password');
    expect(r.text).not.toContain('argon2');

    const row = await t.services.db('users').where({ id: r.body.user.id }).first();
    expect(row.email).toBe('nova.pessoa@example.com');
    expect(row.cpf).toBe('52998224725');
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
    expect(row.password_hash).not.toContain(body.password);
    expect(row.accepted_terms_at).toBeInstanceOf(Date);
    const audit = await t.services.db('audit_log').where({ entity: 'user', entity_id: String(row.id), action: 'user.registered' });
    expect(audit).toHaveLength(1);

    // the new account can log in
    const login = await t.api('POST', '/api/auth/login', {
      body: { email: 'NOVA.PESSOA@example.com', password: body.password },
      headers: freshIp(),
    });
    expect(login.status).toBe(200);
    expect(login.body.user.id).toBe(r.body.user.id);
  });

  test('accepts someone who turns 18 today and refuses someone who turns 18 tomorrow', async () => {
    const ok = await register(registration({ birthdate: birthdateYearsAgo(18) }));
    expect(ok.status).toBe(201);
    const young = await register(registration({ birthdate: birthdateYearsAgo(18, 1) }));
    expectValidationError(young, 'É necessário ter 18 anos ou mais.', 'birthdate');
  });

  describe('each rule answers 400 with its pt-BR message', () => {
    test.each([
      ['name', { name: '' }, 'Informe seu nome completo.'],
      ['name', { name: '    ' }, 'Informe seu nome completo.'],
      ['email', { email: 'maria@' }, 'E-mail inválido.'],
      ['email', { email: 'maria example.com' }, 'E-mail inválido.'],
      ['email', { email: '' }, 'E-mail inválido.'],
      ['phone', { phone: '99999-000' }, 'Informe um telefone válido com DDD.'],
      ['phone', { phone: '' }, 'Informe um telefone válido com DDD.'],
      ['cpf', { cpf: '111.111.111-11' }, 'CPF inválido.'],
      ['cpf', { cpf: '529.982.247-26' }, 'CPF inválido.'],
      ['cpf', { cpf: '5299822472' }, 'CPF inválido.'],
      ['birthdate', { birthdate: '' }, 'Informe a data de nascimento.'],
      ['birthdate', { birthdate: '2001-02-30' }, 'Informe a data de nascimento.'],
      ['birthdate', { birthdate: '15/01/1990' }, 'Informe a data de nascimento.'],
      ['birthdate', { birthdate: '2015-05-05' }, 'É necessário ter 18 anos ou mais.'],
      ['password', { password: '' }, 'Informe uma senha.'],
      ['password', { password: '12345' }, 'A senha deve ter pelo menos 6 caracteres.'],
      ['acceptTerms', { acceptTerms: false }, 'É necessário aceitar os termos.'],
    ])('%s %j', async (field, patch, message) => {
      const r = await register(registration(patch));
      expectValidationError(r, message, field);
      // only that field fails
      expect(r.body.details.map((d: { path: string }) => d.path)).toEqual([field]);
    });

    test('an impossible date is not also reported as under age', async () => {
      const r = await register(registration({ birthdate: '2001-02-30' }));
      expect(r.body.details).toEqual([expect.objectContaining({ path: 'birthdate', message: 'Informe a data de nascimento.' })]);
    });
  });

  test('missing fields answer 400 listing every field, never 500', async () => {
    const r = await register({});
    expectValidationError(r, 'Informe seu nome completo.');
    const byField = Object.fromEntries(r.body.details.map((d: { path: string; message: string }) => [d.path, d.message]));
    expect(byField).toEqual(EMPTY_REGISTRATION_MESSAGES);
  });

  test('a request without a body is a validation error', async () => {
    const r = await t.api('POST', '/api/auth/register', { headers: freshIp() });
    expectValidationError(r, 'Informe seu nome completo.');
  });

  test.each([
    ['name', { name: 123 }, 'Informe seu nome completo.'],
    ['name', { name: null }, 'Informe seu nome completo.'],
    ['email', { email: 42 }, 'E-mail inválido.'],
    ['email', { email: ['a@b.co'] }, 'E-mail inválido.'],
    ['phone', { phone: 41999990000 }, 'Informe um telefone válido com DDD.'],
    ['cpf', { cpf: 52998224725 }, 'CPF inválido.'],
    ['birthdate', { birthdate: 19900115 }, 'Informe a data de nascimento.'],
    ['password', { password: 12345678 }, 'Informe uma senha.'],
    ['acceptTerms', { acceptTerms: 'true' }, 'É necessário aceitar os termos.'],
    ['acceptTerms', { acceptTerms: 1 }, 'É necessário aceitar os termos.'],
  ])('wrong type for %s %j answers 400', async (field, patch, message) => {
    const r = await register(registration(patch));
    expectValidationError(r, message, field);
  });

  test.each([[[]], [['a']], ['texto'], [123], [null]])('a body that is not an object (%j) answers 400, never 500', async (body) => {
    const r = await t.api('POST', '/api/auth/register', { rawBody: JSON.stringify(body), headers: freshIp() });
    expect(r.status).toBe(400);
    expect(['validation_error', 'bad_request']).toContain(r.body.error);
    expect(typeof r.body.message).toBe('string');
  });

  test('an array body gets a pt-BR message', async () => {
    const r = await t.api('POST', '/api/auth/register', { rawBody: '[]', headers: freshIp() });
    expectValidationError(r, 'Envie os dados como um objeto JSON.');
  });

  test('duplicate email, case-insensitive → 409 account_exists', async () => {
    const first = await register(registration({ email: 'Foo@X.com' }));
    expect(first.status).toBe(201);
    expect(first.body.user.email).toBe('foo@x.com');
    for (const email of ['foo@x.com', 'FOO@X.COM', ' foo@x.com ']) {
      const r = await register(registration({ email }));
      expect(r.status).toBe(409);
      expect(r.body).toEqual(ACCOUNT_EXISTS_BODY);
    }
    expect(await t.services.db('users').whereRaw('lower(email) = ?', ['foo@x.com']).count({ n: '*' })).toEqual([{ n: 1 }]);
  });

  test('duplicate CPF, formatted vs digits → 409 account_exists', async () => {
    const cpf = uniqueCpf();
    const formatted = `${cpf.slice(0, 3)}.${cpf.slice(3, 6)}.${cpf.slice(6, 9)}-${cpf.slice(9)}`;
    const first = await register(registration({ cpf: formatted }));
    expect(first.status).toBe(201);
    expect(first.body.user.cpf).toBe(cpf);
    const r = await register(registration({ cpf, email: uniqueEmail() }));
    expect(r.status).toBe(409);
    expect(r.body).toEqual(ACCOUNT_EXISTS_BODY);
  });

  test('a taken e-mail and a taken CPF answer byte-for-byte the same (no enumeration)', async () => {
    const owner = registration();
    expect((await register(owner)).status).toBe(201);
    const takenEmail = await register(registration({ email: owner.email }));
    const takenCpf = await register(registration({ cpf: owner.cpf }));
    const both = await register(registration({ email: owner.email, cpf: owner.cpf }));
    for (const r of [takenEmail, takenCpf, both]) {
      expect(r.status).toBe(409);
      expect(r.headers.get('content-type')).toBe(takenEmail.headers.get('content-type'));
    }
    expect(takenCpf.text).toBe(takenEmail.text);
    expect(both.text).toBe(takenEmail.text);
    expect(takenEmail.body).toEqual(ACCOUNT_EXISTS_BODY);
    expect(takenEmail.text).not.toMatch(/cpf_taken|email_taken/);
    // nothing was created by the refused attempts
    expect(await t.services.db('users').where({ cpf: owner.cpf })).toHaveLength(1);
  });

  test('two registrations of one email at the same time: one 201, one 409 account_exists, never a 500', async () => {
    const email = uniqueEmail('corrida');
    const results = await Promise.all([register(registration({ email })), register(registration({ email: email.toUpperCase() }))]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(results.find((r) => r.status === 409)!.body).toEqual(ACCOUNT_EXISTS_BODY);
  });

  test('two registrations of one CPF at the same time: one 201, one 409 account_exists', async () => {
    const cpf = uniqueCpf();
    const results = await Promise.all([register(registration({ cpf })), register(registration({ cpf }))]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(results.find((r) => r.status === 409)!.body).toEqual(ACCOUNT_EXISTS_BODY);
  });

  test('client-sent role / is_admin are ignored', async () => {
    const r = await register(registration({ role: 'admin', is_admin: true, isAdmin: true }));
    expect(r.status).toBe(201);
    expect(r.body.user).toMatchObject({ role: 'customer', is_admin: false });
    const row = await t.services.db('users').where({ id: r.body.user.id }).first();
    expect(row).toMatchObject({ role: 'customer', is_admin: false });
  });
});
