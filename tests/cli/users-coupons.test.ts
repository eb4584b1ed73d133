import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { runCliCaptured, STACK } from '../helpers/cli';
import { makeDraw, sellDirectly } from '../draws/fixtures';

/**
 * `cotaverde users show|promote|demote` and `cotaverde coupons show|adjust`: they call
 * the admin registry's service (the same rules as the console), print text or --json, and exit
 * 1 on a domain error, 2 on a usage error, with the message on stderr and no stack trace.
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1' } });
});
afterAll(() => t.close());

const cli = (argv: string[]) => runCliCaptured(argv, () => t.services);

describe('users show', () => {
  test('by e-mail (any case) or id, as text and --json', async () => {
    const u = await createUser(t, { name: 'Beatriz Linha' });
    const d = await makeDraw(t, { total_numbers: 10 });
    await sellDirectly(t, d.id, u.user.id, [1, 2]);
    const r = await cli(['users', 'show', u.email.toUpperCase()]);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toContain(`usuário #${u.user.id} Beatriz Linha <${u.email}>`);
    expect(r.out).toContain('administrador: não');
    expect(r.out).toContain('saldo: R$ 0,00');
    expect(r.out).toContain('pagamentos: 0  números: 2  vitórias: 0');
    const j = await cli(['users', 'show', String(u.user.id), '--json']);
    expect(j.code).toBe(0);
    expect(JSON.parse(j.out)).toEqual([
      expect.objectContaining({
        id: u.user.id,
        email: u.email,
        name: 'Beatriz Linha',
        is_admin: false,
        numbers_count: 2,
        coupon_value_cents: 0,
      }),
    ]);
    expect(j.out).not.toContain('password');
  });

  test('unknown account: exit 1 with the message on stderr', async () => {
    const r = await cli(['users', 'show', 'ninguem@example.com']);
    expect(r).toEqual({ code: 1, out: '', err: 'erro (user_not_found): Usuário não encontrado: ninguem@example.com\n' });
  });

  test('missing argument: usage error, exit 2', async () => {
    const r = await cli(['users', 'show']);
    expect(r.code).toBe(2);
    expect(r.err).toContain("falta o argumento obrigatório 'email-ou-id'");
    expect(r.err).not.toMatch(STACK);
  });
});

describe('users promote / demote', () => {
  test('promote then demote, audited as cli; --json', async () => {
    const u = await createUser(t);
    const p = await cli(['users', 'promote', u.email]);
    expect(p).toEqual({ code: 0, out: `usuário #${u.user.id} ${u.email}: administrador sim\n`, err: '' });
    expect((await t.api('GET', '/api/admin/users', { token: u.token })).status).toBe(200);
    const d = await cli(['users', 'demote', u.email, '--json']);
    expect(d.code).toBe(0);
    expect(JSON.parse(d.out)).toEqual([expect.objectContaining({ id: u.user.id, is_admin: false, role: 'customer' })]);
    expect((await t.api('GET', '/api/admin/users', { token: u.token })).status).toBe(403);
    const log = await t.services
      .db('audit_log')
      .where({ entity: 'user', entity_id: String(u.user.id), action: 'user.updated' })
      .orderBy('id');
    expect(log.map((l) => [l.actor, l.data.before.is_admin, l.data.after.is_admin])).toEqual([
      ['cli', false, true],
      ['cli', true, false],
    ]);
  });

  test('not an e-mail: exit 2; unknown e-mail: exit 1', async () => {
    const bad = await cli(['users', 'promote', '42']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('informe o e-mail da conta.');
    const unknown = await cli(['users', 'demote', 'nao-existe@example.com']);
    expect([unknown.code, unknown.err]).toEqual([1, 'erro (user_not_found): Usuário não encontrado: nao-existe@example.com\n']);
  });
});

describe('coupons show / adjust', () => {
  test('adjust adds and takes with a reason (ledger + audit), show prints it; the customer sees the same balance', async () => {
    const u = await createUser(t);
    const up = await cli(['coupons', 'adjust', u.email, '--cents', '1250', '--reason', 'Cortesia de atendimento']);
    expect(up).toEqual({ code: 0, out: `saldo de #${u.user.id} <${u.email}>: R$ 0,00 → R$ 12,50 (ajuste de R$ 12,50)\n`, err: '' });
    const down = await cli(['coupons', 'adjust', u.email, '--cents', '-250', '--reason', 'Correção', '--json']);
    expect(down.code).toBe(0);
    expect(JSON.parse(down.out)).toEqual([{ user_id: u.user.id, email: u.email, before_cents: 1250, after_cents: 1000, cents: -250 }]);
    expect(
      await t.services
        .db('coupon_ledger')
        .where({ user_id: u.user.id })
        .orderBy('id')
        .select('kind', 'amount_cents', 'note', 'actor_user_id'),
    ).toEqual([
      { kind: 'adjustment', amount_cents: 1250, note: 'Cortesia de atendimento', actor_user_id: null },
      { kind: 'adjustment', amount_cents: -250, note: 'Correção', actor_user_id: null },
    ]);
    const log = await t.services
      .db('audit_log')
      .where({ entity: 'user', entity_id: String(u.user.id), action: 'coupon.adjusted' })
      .orderBy('id');
    expect(log.map((l) => [l.actor, l.data.before.coupon_value_cents, l.data.after.coupon_value_cents, l.data.reason])).toEqual([
      ['cli', 0, 1250, 'Cortesia de atendimento'],
      ['cli', 1250, 1000, 'Correção'],
    ]);

    const show = await cli(['coupons', 'show', u.email]);
    expect(show.code).toBe(0);
    expect(show.out).toMatch(new RegExp(`^usuário #${u.user.id} <${u.email}>\\ncupom: CV-[0-9A-Z]{10}\\nsaldo: R\\$ 10,00\\n`));
    expect(show.out).toContain('Cortesia de atendimento');
    const json = JSON.parse((await cli(['coupons', 'show', u.email, '--json'])).out);
    expect(json[0]).toMatchObject({
      user_id: u.user.id,
      cents: 1000,
      entries: [expect.objectContaining({ cents: -250 }), expect.objectContaining({ cents: 1250 })],
    });
    expect((await t.api('GET', '/api/coupons/mine', { token: u.token })).body.cents).toBe(1000);
  });

  test('a balance never goes below zero: exit 1, nothing written', async () => {
    const u = await createUser(t);
    const r = await cli(['coupons', 'adjust', u.email, '--cents', '-1', '--reason', 'Teste']);
    expect(r).toEqual({ code: 1, out: '', err: 'erro (coupon_negative): O saldo não pode ficar negativo: o saldo atual é R$ 0,00.\n' });
    expect(await t.services.db('coupon_ledger').where({ user_id: u.user.id })).toEqual([]);
  });

  test.each([
    [['coupons', 'adjust', 'x@example.com', '--reason', 'sem valor'], 2, "a opção obrigatória '--cents <±n>' não foi informada"],
    [['coupons', 'adjust', 'x@example.com', '--cents', '12.5', '--reason', 'meio'], 2, '--cents deve ser um número inteiro de centavos'],
    [['coupons', 'adjust', 'x@example.com', '--cents', '100'], 2, "a opção obrigatória '--reason <texto>' não foi informada"],
    [['coupons', 'show'], 2, "falta o argumento obrigatório 'email'"],
    [['coupons', 'nada'], 2, "comando desconhecido 'nada'"],
    [['coupons', 'show', 'ninguem@example.com'], 1, 'Usuário não encontrado: ninguem@example.com'],
  ])('%j exits %i', async (argv, code, message) => {
    const r = await cli(argv);
    expect(r.code).toBe(code);
    expect(r.err).toContain(message);
    expect(r.err).not.toMatch(STACK);
    expect(r.out).toBe('');
  });

  test('a reason too short or a zero adjustment is refused (exit 1)', async () => {
    const u = await createUser(t);
    const short = await cli(['coupons', 'adjust', u.email, '--cents', '100', '--reason', 'x']);
    expect(short.code).toBe(1);
    expect(short.err).toContain('Informe o motivo do ajuste de saldo (pelo menos 3 caracteres).');
    const zero = await cli(['coupons', 'adjust', u.email, '--cents', '0', '--reason', 'zero']);
    expect(zero.code).toBe(1);
    expect(zero.err).toContain('O ajuste não pode ser zero.');
  });

  test('--help lists the commands', async () => {
    const r = await cli(['coupons', '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('show');
    expect(r.out).toContain('adjust');
    const u = await cli(['users', '--help']);
    for (const c of ['list', 'show', 'create-admin', 'promote', 'demote']) expect(u.out).toContain(c);
  });
});
