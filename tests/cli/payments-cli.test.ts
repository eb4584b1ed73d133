import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { runCliCaptured, STACK } from '../helpers/cli';
import { buyEbooks, makeProductWithDraw, paymentRow } from '../payments/fixtures';

/**
 * `cotaverde payments list [--status …] [--flagged] [--json]`, `payments show <id>`,
 * `payments review <id> --note <text>`: output, --json, exit codes (1 errors, 2 usage).
 */
let t: TestContext;
let flaggedId: number;
let plainId: number;
let customerEmail: string;
beforeAll(async () => {
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1' } });
  const u = await createUser(t);
  customerEmail = u.email;
  const { product } = await makeProductWithDraw(t, { price_cents: 500 });
  // A late approval: expired unpaid, then approved at the bank → flagged.
  const late = await buyEbooks(t, u.token, product.id, 1, 500);
  await t.services
    .db('payments')
    .where({ id: late.paymentId })
    .update({ expires_at: t.services.db.raw(`now() - interval '1 second'`) });
  await t.services.payments.poll(late.paymentId);
  await t.services.payments.approve(late.paymentId, { via: 'cli' });
  flaggedId = late.paymentId;
  plainId = (await buyEbooks(t, u.token, product.id, 2, 500)).paymentId;
});
afterAll(() => t.close());

const cli = (argv: string[]) => runCliCaptured(argv, () => t.services);

describe('payments list', () => {
  test('text table, newest first; --flagged shows only flagged ones with their reason', async () => {
    const all = await cli(['payments', 'list']);
    expect(all).toMatchObject({ code: 0, err: '' });
    const lines = all.out.trim().split('\n');
    expect(lines[0]).toMatch(/^id\s+situação\s+tipo\s+provedor\s+valor\s+cliente/);
    expect(lines[2]).toMatch(new RegExp(`^${plainId}\\s+pending`));
    expect(all.out).toContain('R$ 10,00');

    const flagged = await cli(['payments', 'list', '--flagged']);
    expect(flagged.code).toBe(0);
    expect(flagged.out).toContain('aprovado depois de expired');
    expect(flagged.out).toMatch(new RegExp(`^${flaggedId}\\s+approved`, 'm'));
    expect(flagged.out).not.toMatch(new RegExp(`^${plainId}\\s`, 'm'));
  });

  test('--json: the page with items, hasMore, limit, offset; --status filters', async () => {
    const r = await cli(['payments', 'list', '--status', 'pending', '--json']);
    expect(r).toMatchObject({ code: 0, err: '' });
    const page = JSON.parse(r.out);
    expect(page).toMatchObject({ hasMore: false, limit: 20, offset: 0 });
    expect(page.items.map((p: { id: number }) => p.id)).toEqual([plainId]);
    expect(page.items[0]).toMatchObject({ status: 'pending', amount_cents: 1000, user_email: customerEmail, flagged_for_review: false });

    const one = JSON.parse((await cli(['payments', 'list', '--limit', '1', '--json'])).out);
    expect(one).toMatchObject({ hasMore: true, limit: 1 });
    const flagged = JSON.parse((await cli(['payments', 'list', '--flagged', '--json'])).out);
    expect(flagged.items.map((p: { id: number }) => p.id)).toEqual([flaggedId]);
    expect(flagged.items[0].review_reason).toMatch(/aprovado depois de expired/);
  });

  test.each([
    [['--status', 'pago'], '--status deve ser um de'],
    [['--limit', '0'], '--limit deve ser um inteiro entre 1 e 500'],
    [['--limit', 'abc'], '--limit deve ser um inteiro entre 1 e 500'],
    [['--offset', '-1'], '--offset deve ser um inteiro'],
    [['--nada'], "opção desconhecida '--nada'"],
  ])('%j is a usage error: exit 2, message on stderr, nothing on stdout', async (args, message) => {
    const r = await cli(['payments', 'list', ...args]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
    expect(r.err).not.toMatch(STACK);
    expect(r.out).toBe('');
  });
});

describe('payments show', () => {
  test('text and --json, with the reason and the audit trail', async () => {
    const r = await cli(['payments', 'show', String(flaggedId)]);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toContain(`pagamento: #${flaggedId}`);
    expect(r.out).toContain('status: approved');
    expect(r.out).toContain('valor: R$ 5,00');
    expect(r.out).toMatch(/em análise: sim: aprovado depois de expired/);
    expect(r.out).toContain('payment.sandbox_approved');
    const j = JSON.parse((await cli(['payments', 'show', String(flaggedId), '--json'])).out);
    expect(j).toMatchObject({ id: flaggedId, status: 'approved', flagged_for_review: true, user_email: customerEmail });
    expect(Array.isArray(j.audit)).toBe(true);
  });

  test('unknown id exits 1 with the message; a malformed id or none is a usage error (2)', async () => {
    const missing = await cli(['payments', 'show', '99999999']);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('Pagamento não encontrado.');
    expect(missing.out).toBe('');
    for (const args of [['0x0f'], ['-1'], ['abc'], []]) {
      const r = await cli(['payments', 'show', ...args]);
      expect([args, r.code]).toEqual([args, 2]);
      expect(r.err).not.toMatch(STACK);
    }
  });
});

describe('payments review', () => {
  test('marks a flagged payment reviewed with the note, audited as the CLI', async () => {
    const r = await cli(['payments', 'review', String(flaggedId), '--note', 'Conferido no extrato do banco.']);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toBe(`pagamento #${flaggedId} marcado como revisado: Conferido no extrato do banco.\n`);
    const row = await paymentRow(t, flaggedId);
    expect(row.review_note).toBe('Conferido no extrato do banco.');
    expect(row.reviewed_at).toBeInstanceOf(Date);
    expect(
      await t.services.db('audit_log').where({ entity: 'payment', entity_id: String(flaggedId), action: 'payment.reviewed', actor: 'cli' }),
    ).toHaveLength(1);
    const j = JSON.parse((await cli(['payments', 'review', String(flaggedId), '--note', 'Segunda nota', '--json'])).out);
    expect(j).toMatchObject({ id: flaggedId, review_note: 'Segunda nota' });
    expect((await cli(['payments', 'list', '--flagged', '--unreviewed', '--json'])).out).not.toContain(`"id": ${flaggedId},`);
  });

  test('without --note: usage (2); a payment not flagged: exit 1 with the reason; nothing written', async () => {
    const noNote = await cli(['payments', 'review', String(flaggedId)]);
    expect(noNote.code).toBe(2);
    expect(noNote.err).toContain('informe --note');
    const blank = await cli(['payments', 'review', String(flaggedId), '--note', '   ']);
    expect(blank.code).toBe(2);
    const notFlagged = await cli(['payments', 'review', String(plainId), '--note', 'ok']);
    expect(notFlagged.code).toBe(1);
    expect(notFlagged.err).toContain('Este pagamento não está marcado para análise.');
    expect(notFlagged.err).not.toMatch(STACK);
    expect(await paymentRow(t, plainId)).toMatchObject({ reviewed_at: null, review_note: null });
    const tooLong = await cli(['payments', 'review', String(flaggedId), '--note', 'x'.repeat(2001)]);
    expect(tooLong.code).toBe(1);
    expect(tooLong.err).toContain('A nota pode ter no máximo 2000 caracteres.');
  });

  test('--help of each payments command exits 0', async () => {
    for (const c of ['list', 'show', 'review', 'approve']) {
      const r = await cli(['payments', c, '--help']);
      expect([c, r.code, r.err]).toEqual([c, 0, '']);
      expect(r.out).toMatch(new RegExp(`^Uso: cotaverde payments ${c}`));
    }
  });
});
