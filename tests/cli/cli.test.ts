import type { Command } from 'commander';
import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { buildCli } from '../../cli/index';
import { runCliCaptured, STACK } from '../helpers/cli';
import type { Services } from '../../src/services';
import { fakeSmtp, type FakeSmtp } from '../helpers/smtp';
import { RESET_LINK_OMITTED, RESET_PENDING_TEXT } from '../../src/auth/service';
import { resetTokenFrom } from '../auth/fixtures';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

let ipSeq = 0;
const ip = () => ({ 'x-forwarded-for': `10.77.0.${++ipSeq}` });

/** Runs the CLI in-process against the test services (or others), capturing stdout/stderr. */
const cli = (argv: string[], services: () => Services = () => t.services) => runCliCaptured(argv, services);

describe('users create-admin', () => {
  test('creates an admin who can log in over HTTP as admin', async () => {
    const r = await cli([
      'users',
      'create-admin',
      '--email',
      'Chefe@CotaVerde.test',
      '--password',
      'senha-do-chefe',
      '--name',
      'Chefe Geral',
    ]);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toMatch(/^administrador #\d+ chefe@cotaverde\.test\n$/);

    const row = await t.services.db('users').where({ email: 'chefe@cotaverde.test' }).first();
    expect(row).toMatchObject({ name: 'Chefe Geral', is_admin: true, role: 'admin' });
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
    expect(await t.services.db('audit_log').where({ action: 'user.admin_created', entity_id: String(row.id), actor: 'cli' })).toHaveLength(
      1,
    );

    const login = await t.api('POST', '/api/auth/login', {
      body: { email: 'chefe@cotaverde.test', password: 'senha-do-chefe' },
      headers: ip(),
    });
    expect(login.status).toBe(200);
    expect(login.body.user).toMatchObject({ email: 'chefe@cotaverde.test', name: 'Chefe Geral', is_admin: true, role: 'admin' });
    const me = await t.api('GET', '/api/me', { token: login.body.token });
    expect(me.body.user.is_admin).toBe(true);
  });

  test('--json prints the account without the password hash', async () => {
    const r = await cli(['users', 'create-admin', '--email', 'json-admin@cotaverde.test', '--password', 'senha-json-1', '--json']);
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.out);
    expect(rows).toEqual([
      expect.objectContaining({ email: 'json-admin@cotaverde.test', name: 'Administrador', is_admin: true, role: 'admin' }),
    ]);
    expect(r.out).not.toContain('password');
    expect(r.out).not.toContain('argon2');
  });

  test('promotes an existing account, resets its password and ends its old sessions', async () => {
    const u = await createUser(t);
    const r = await cli(['users', 'create-admin', '--email', u.email.toUpperCase(), '--password', 'nova-senha-admin']);
    expect(r.code).toBe(0);
    expect(await t.services.db('users').whereRaw('lower(email) = ?', [u.email])).toHaveLength(1);
    expect((await t.api('GET', '/api/me', { token: u.token })).status).toBe(401);
    expect((await t.api('POST', '/api/auth/login', { body: { email: u.email, password: u.password }, headers: ip() })).status).toBe(401);
    const login = await t.api('POST', '/api/auth/login', { body: { email: u.email, password: 'nova-senha-admin' }, headers: ip() });
    expect(login.status).toBe(200);
    expect(login.body.user).toMatchObject({ id: u.user.id, is_admin: true, role: 'admin' });
  });

  test.each([
    [
      ['users', 'create-admin', '--email', 'bad', '--password', 'x'],
      /erro: .*Informe um e-mail válido\..*A senha deve ter pelo menos 6 caracteres\./,
    ],
    [['users', 'create-admin', '--email', 'ok@cotaverde.test', '--password', '123'], /A senha deve ter pelo menos 6 caracteres\./],
    [['users', 'create-admin', '--password', 'senha-123456'], /a opção obrigatória '--email <email>' não foi informada/],
    [['users', 'create-admin', '--email', 'ok@cotaverde.test'], /a opção obrigatória '--password <senha>' não foi informada/],
  ])('%j fails with a clear message and no stack trace', async (argv, message) => {
    const before = await t.services.db('users').count({ n: '*' });
    const r = await cli(argv);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(message);
    expect(r.err).not.toMatch(STACK);
    expect(await t.services.db('users').count({ n: '*' })).toEqual(before);
  });
});

describe('users list', () => {
  test('--json prints a valid JSON array of the users, without password hashes', async () => {
    const a = await createUser(t, { name: 'Lista Um' });
    const b = await createUser(t, { name: 'Lista Dois', admin: true });
    const r = await cli(['users', 'list', '--json', '--limit', '1000']);
    expect(r).toMatchObject({ code: 0, err: '' });
    const rows = JSON.parse(r.out);
    expect(Array.isArray(rows)).toBe(true);
    expect(rows).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: a.user.id, email: a.email, name: 'Lista Um', is_admin: false }),
        expect.objectContaining({ id: b.user.id, email: b.email, name: 'Lista Dois', is_admin: true }),
      ]),
    );
    expect(rows).toHaveLength(Number((await t.services.db('users').count({ n: '*' }))[0].n));
    for (const row of rows) expect(row).not.toHaveProperty('password_hash');
    expect(r.out).not.toContain('argon2');
  });

  test('--search, --limit and --offset filter and page', async () => {
    const u = await createUser(t, { name: 'Zuleica Procurada' });
    const found = JSON.parse((await cli(['users', 'list', '--json', '--search', 'zuleica'])).out);
    expect(found.map((r: { id: number }) => r.id)).toEqual([u.user.id]);
    const page1 = JSON.parse((await cli(['users', 'list', '--json', '--limit', '2'])).out);
    const page2 = JSON.parse((await cli(['users', 'list', '--json', '--limit', '2', '--offset', '2'])).out);
    expect(page1).toHaveLength(2);
    expect(page2.length).toBeGreaterThan(0);
    expect(page1.map((r: { id: number }) => r.id)).not.toContain(page2[0].id);
    expect(page2[0].id).toBeGreaterThan(page1[1].id);
  });

  test('the text table has a header and one line per user', async () => {
    const u = await createUser(t, { name: 'Tabela Texto' });
    const r = await cli(['users', 'list', '--search', 'Tabela Texto']);
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id\s+nome\s+e-mail\s+celular\s+admin\s+criado em$/);
    expect(lines[1]).toMatch(/^-+/);
    expect(lines.slice(2)).toHaveLength(1);
    expect(lines[2]).toContain(u.email);
  });

  test.each([[['--limit', '0']], [['--limit', 'abc']], [['--limit', '5000']], [['--offset', '-1']]])(
    'users list %j exits non-zero with a clear message',
    async (args) => {
      const r = await cli(['users', 'list', ...args]);
      expect(r.code).not.toBe(0);
      expect(r.err).toMatch(/^erro: --(limit|offset) deve ser um inteiro/);
      expect(r.err).not.toMatch(STACK);
      expect(r.out).toBe('');
    },
  );
});

describe('mail list', () => {
  // Its own app, with SMTP: the reset link exists only in the mail that leaves, so the test reads
  // the real token there and checks the listing never shows it.
  let tm: TestContext;
  let smtp: FakeSmtp;
  beforeAll(async () => {
    smtp = await fakeSmtp();
    tm = await createTestContext({ env: { SMTP_URL: smtp.url } });
  });
  afterAll(async () => {
    await tm.close();
    await smtp.close();
  });
  const mcli = (argv: string[]) => runCliCaptured(argv, () => tm.services);
  const USABLE_LINK = /redefinir-senha\?token=[A-Za-z0-9_%-]{20,}/;

  test('--json lists a reset mail after a reset request, without any link', async () => {
    const u = await createUser(tm);
    const reset = await tm.api('POST', '/api/auth/reset-password', { body: { email: u.email }, headers: ip() });
    expect(reset.status).toBe(202);
    const r = await mcli(['mail', 'list', '--json', '--to', u.email.toUpperCase()]);
    expect(r).toMatchObject({ code: 0, err: '' });
    const rows = JSON.parse(r.out);
    expect(rows).toEqual([
      expect.objectContaining({
        to: u.email,
        template: 'password_reset',
        subject: 'Cota Verde: redefinição de senha',
        status: 'pending',
        attempts: 0,
        body: RESET_PENDING_TEXT,
      }),
    ]);

    // filtered by status
    expect(JSON.parse((await mcli(['mail', 'list', '--json', '--to', u.email, '--status', 'sent'])).out)).toEqual([]);
    expect(await tm.services.mailer.deliver(rows[0].id)).toBe('sent');
    const sent = JSON.parse((await mcli(['mail', 'list', '--json', '--to', u.email, '--status', 'sent'])).out);
    expect(sent).toEqual([expect.objectContaining({ id: rows[0].id, status: 'sent' })]);
    const token = resetTokenFrom(smtp.mails.find((m) => m.to.includes(u.email))!.text);
    expect(sent[0].body).toContain(RESET_LINK_OMITTED);
    expect(JSON.stringify(sent)).not.toContain(token);
    expect(JSON.stringify(sent)).not.toMatch(USABLE_LINK);
  });

  test('--body prints the whole text as mailed, but never a usable link', async () => {
    const u = await createUser(tm, { name: 'Bruna Reis' });
    await tm.api('POST', '/api/auth/reset-password', { body: { email: u.email }, headers: ip() });
    const plain = await mcli(['mail', 'list', '--to', u.email]);
    expect(plain.code).toBe(0);
    expect(plain.out).toContain(u.email);
    expect(plain.out).not.toContain('redefinição de senha: o texto');
    const [row] = await tm.services.db('mail_outbox').where({ to_address: u.email });
    await tm.services.mailer.deliver(row.id);
    const mailed = smtp.mails.find((m) => m.to.includes(u.email))!.text;
    const token = resetTokenFrom(mailed);

    const withBody = await mcli(['mail', 'list', '--to', u.email, '--body']);
    expect(withBody.code).toBe(0);
    expect(withBody.out).toContain('Olá, Bruna Reis.');
    expect(withBody.out).toContain(
      mailed.trimEnd().replace(/http:\/\/cotaverde\.test\/redefinir-senha\?token=[A-Za-z0-9_-]+/, RESET_LINK_OMITTED),
    );
    expect(withBody.out).not.toContain(token);
    expect(withBody.out).not.toMatch(USABLE_LINK);
    // the link itself still works: the listing only never shows it
    const ok = await tm.api('POST', '/api/auth/reset-password/confirm', { body: { token, password: 'nova-senha-123' }, headers: ip() });
    expect(ok.status).toBe(200);
  });

  test('an old row that still holds a link is listed with the token blanked', async () => {
    const id = await tm.services.mailer.enqueue(tm.services.db, {
      to: 'antiga@example.com',
      subject: 'Cota Verde: redefinição de senha',
      text: 'Link: http://cotaverde.test/redefinir-senha?token=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      template: 'legacy',
    });
    const r = await mcli(['mail', 'list', '--to', 'antiga@example.com', '--body']);
    expect(r.out).toContain(`#${id}`);
    expect(r.out).toContain('redefinir-senha?token=[omitido]');
    expect(r.out).not.toMatch(USABLE_LINK);
  });

  test('a request for an address without an account is listed as dropped after delivery', async () => {
    await tm.api('POST', '/api/auth/reset-password', { body: { email: 'sem-conta@example.com' }, headers: ip() });
    const [row] = await tm.services.db('mail_outbox').where({ to_address: 'sem-conta@example.com' });
    expect(await tm.services.mailer.deliver(row.id)).toBe('dropped');
    const r = await mcli(['mail', 'list', '--json', '--status', 'dropped', '--to', 'sem-conta@example.com']);
    expect(JSON.parse(r.out)).toEqual([expect.objectContaining({ id: row.id, status: 'dropped' })]);
  });

  test.each([
    [['--status', 'nope'], /^erro: --status deve ser pending, sent, logged, failed ou dropped\n$/],
    [['--limit', '0'], /^erro: --limit deve ser um inteiro entre 1 e 1000\n$/],
  ])('mail list %j exits non-zero with a clear message', async (args, message) => {
    const r = await mcli(['mail', 'list', ...args]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(message);
    expect(r.out).toBe('');
  });
});

describe('db', () => {
  test('migrate: nothing pending on a migrated database', async () => {
    const r = await cli(['db', 'migrate']);
    expect(r).toEqual({ code: 0, out: 'nenhuma migração pendente\n', err: '' });
  });

  test('migrate --status --json lists the applied migrations', async () => {
    const r = await cli(['db', 'migrate', '--status', '--json']);
    expect(r.code).toBe(0);
    const [status] = JSON.parse(r.out);
    expect(status.pending).toEqual([]);
    expect(status.completed).toContain('20261122000100_initial-schema');
  });

  test('seed refuses to run in production', async () => {
    const prod = { ...t.services, config: { ...t.services.config, isProduction: true, env: 'production' as const } };
    const before = await t.services.db('infoproducts').count({ n: '*' });
    const r = await cli(['db', 'seed'], () => prod);
    expect(r.code).toBe(1);
    expect(r.err).toBe('erro: o seed de demonstração não roda em produção\n');
    expect(await t.services.db('infoproducts').count({ n: '*' })).toEqual(before);
    expect(await t.services.db('users').whereIn('email', ['admin@cotaverde.dev', 'cliente@cotaverde.dev'])).toHaveLength(0);
  });
});

describe('help and usage', () => {
  /** Every command path of the CLI, e.g. ['users', 'create-admin']. */
  function commandPaths(cmd: Command, prefix: string[] = []): string[][] {
    return cmd.commands.flatMap((c) => [[...prefix, c.name()], ...commandPaths(c, [...prefix, c.name()])]);
  }
  const paths = commandPaths(buildCli(() => t.services));

  test('the CLI has the operator commands', () => {
    const names = paths.map((p) => p.join(' '));
    expect(names).toEqual(expect.arrayContaining(['db migrate', 'db seed', 'users create-admin', 'users list', 'mail list']));
  });

  test('--help exits 0 and prints usage', async () => {
    const r = await cli(['--help']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Uso: cotaverde/);
    for (const c of ['db', 'users', 'mail']) expect(r.out).toContain(c);
  });

  test.each(paths.map((p) => [p.join(' '), p]))('%s --help exits 0 and prints usage', async (_name, path) => {
    const r = await cli([...(path as string[]), '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(new RegExp(`^Uso: cotaverde ${(path as string[]).join(' ')}`));
    expect(r.err).toBe('');
  });

  test('an unknown command exits non-zero and says so', async () => {
    const r = await cli(['nope']);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/comando desconhecido 'nope'/);
    expect(r.err).not.toMatch(STACK);
  });

  test('an unknown option exits non-zero', async () => {
    const r = await cli(['users', 'list', '--frobnicate']);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/opção desconhecida '--frobnicate'/);
  });
});

describe('services lifecycle', () => {
  test('runCli does not close services it did not create', async () => {
    await cli(['users', 'list', '--json']);
    await cli(['users', 'list', '--limit', '0']); // an error path too
    await cli(['--help']);
    expect(await t.services.db.raw('select 1 as ok').then((r) => r.rows[0].ok)).toBe(1);
    expect(await t.services.redis.ping()).toBe('PONG');
    expect((await t.api('GET', '/api/ready')).status).toBe(200);
  });

  test('without services and without DATABASE_URL it prints the configuration problem, no stack trace', async () => {
    // In production: elsewhere the CLI falls back to npm start's local PostgreSQL (withLocalStackDefaults).
    const saved = { DATABASE_URL: process.env.DATABASE_URL, NODE_ENV: process.env.NODE_ENV };
    delete process.env.DATABASE_URL;
    process.env.NODE_ENV = 'production';
    try {
      const r = await runCliCaptured(['users', 'list']);
      expect(r.code).toBe(1);
      expect(r.err).toContain('DATABASE_URL is required');
      expect(r.err).not.toMatch(STACK);
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
});

describe('payments approve', () => {
  test.each(['0x0f', '1e3', '01', '-1', '1.0', 'abc', '9007199254740993'])(
    'refuses the id %s by the API id rule, touching nothing',
    async (id) => {
      const r = await cli(['payments', 'approve', id]);
      expect(r.code).not.toBe(0);
      expect(r.err).toContain('o id do pagamento deve ser um número inteiro decimal');
      expect(r.out).toBe('');
    },
  );
});
