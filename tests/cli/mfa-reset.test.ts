import { generate } from 'otplib';
import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { runCliCaptured, STACK } from '../helpers/cli';
import { freshIp } from '../auth/fixtures';

/**
 * `cotaverde users mfa-reset <email>`: an account locked out of its second factor (lost phone and
 * recovery codes) gets it turned off by an operator; its sessions end; the act is audited as cli.
 */
let t: TestContext;
let clock = Date.now();
beforeAll(async () => {
  t = await createTestContext({ now: () => clock });
});
afterAll(() => t.close());

const cli = (argv: string[]) => runCliCaptured(argv, () => t.services);

async function enrolled() {
  const u = await createUser(t);
  const s = await t.api('POST', '/api/auth/mfa/setup', { token: u.token });
  const e = await t.api('POST', '/api/auth/mfa/enable', {
    token: u.token,
    body: { code: await generate({ secret: s.body.secret, epoch: Math.floor(clock / 1000) }) },
  });
  expect(e.status).toBe(200);
  clock += 30_000;
  return u;
}

test('turns two factors off, ends every session, audited; the password alone signs in again', async () => {
  const u = await enrolled();
  const other = await createUser(t);
  const r = await cli(['users', 'mfa-reset', u.email.toUpperCase()]);
  expect(r).toEqual({
    code: 0,
    out: `usuário #${u.user.id} ${u.email}: verificação em duas etapas desativada; 1 sessão encerrada\n`,
    err: '',
  });
  expect((await t.api('GET', '/api/me', { token: u.token })).status).toBe(401);
  expect((await t.api('GET', '/api/me', { token: other.token })).status).toBe(200);
  for (const table of ['user_mfa', 'mfa_recovery_codes', 'mfa_challenges'])
    expect([table, await t.services.db(table).where({ user_id: u.user.id })]).toEqual([table, []]);
  const login = await t.api('POST', '/api/auth/login', { body: { email: u.email, password: u.password }, headers: freshIp() });
  expect(Object.keys(login.body).sort()).toEqual(['token', 'user']);
  const log = await t.services.db('audit_log').where({ action: 'user.mfa_reset', entity_id: String(u.user.id) });
  expect(log.map((l) => [l.actor, l.data])).toEqual([['cli', { mfa_was_enabled: true, sessions_ended: 1 }]]);
});

test('--json; an account without two factors: said so, its sessions end all the same', async () => {
  const u = await createUser(t);
  const r = await cli(['users', 'mfa-reset', u.email, '--json']);
  expect(r.code).toBe(0);
  expect(JSON.parse(r.out)).toEqual([{ id: u.user.id, email: u.email, mfa_was_enabled: false, sessions_ended: 1 }]);
  const plain = await cli(['users', 'mfa-reset', u.email]);
  expect(plain.out).toBe(`usuário #${u.user.id} ${u.email}: a verificação em duas etapas já estava desativada; 0 sessões encerradas\n`);
});

test('not an e-mail: exit 2; unknown e-mail: exit 1; no argument: exit 2; never a stack trace', async () => {
  const bad = await cli(['users', 'mfa-reset', '42']);
  expect(bad.code).toBe(2);
  expect(bad.err).toContain('informe o e-mail da conta.');
  const unknown = await cli(['users', 'mfa-reset', 'nao-existe@example.com']);
  expect([unknown.code, unknown.err]).toEqual([1, 'erro (user_not_found): Usuário não encontrado: nao-existe@example.com\n']);
  const missing = await cli(['users', 'mfa-reset']);
  expect(missing.code).toBe(2);
  expect(missing.err).toContain("falta o argumento obrigatório 'email'");
  for (const r of [bad, unknown, missing]) expect(r.err).not.toMatch(STACK);
});
