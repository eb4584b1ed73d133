import fs from 'node:fs';
import { childProcessEnv, createTestContext, createUser, type TestContext } from '../helpers/context';
import { runCliCaptured } from '../helpers/cli';
import { REAL_CONTESTS } from '../helpers/fake-lottery';
import { makeDraw, sellDirectly } from '../draws/fixtures';
import { loadConfig } from '../../src/platform/config';
import { createServices } from '../../src/services';
import { announceWebUrl, WEB_URL_FILE } from '../../src/platform/web-url';

/**
 * RULES W6, a correction corrects everything: a correction that changes the winner resets the
 * prize's redeemed flag (name and link stay with the draw), mails the previous winner a retraction
 * and the new one the announcement, audits both; typed results carry the contest's real date and
 * keep the contests' date order (--force to insist); a draw decided with no winner reads so;
 * mail links use PUBLIC_URL (or the address the web process announced) whichever process sends.
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1' } });
});
afterAll(async () => {
  await t?.close();
});

const cli = (argv: string[]) => runCliCaptured(argv, () => t.services);
const real = (c: number) => REAL_CONTESTS[String(c)].map(Number);
const DAY = 86_400_000;
const BY = { actorUserId: null, actor: 'cli' as const, source: 'cli' as const };
const drawRow = (id: number) => t.services.db('draws').where({ id }).first();
const closeAt = (drawId: number, at: Date) =>
  t.services.db('draws').where({ id: drawId }).update({ status: 'closed', closed_at: at, closed_by: 'admin' });

test('a correction that changes the winner resets RESGATADO, retracts the old winner, announces the new one, audits both', async () => {
  const D = new Date(Date.now() - 40 * DAY);
  const numbers = real(2650);
  const draw = await makeDraw(t);
  const x = await createUser(t, { name: 'Xavier Antigo' });
  const y = await createUser(t, { name: 'Yara Nova' });
  await sellDirectly(t, draw.id, x.user.id, [numbers[19]]);
  await sellDirectly(t, draw.id, y.user.id, [numbers[18]]);
  await closeAt(draw.id, new Date(D.getTime() - 3600_000));
  await t.services.results.record({ contest_number: 6000, numbers, drawn_at: D }, BY);
  expect((await drawRow(draw.id)).winner_user_id).toBe(x.user.id);
  const prize = await cli(['winners', 'set-prize', String(draw.id), '--name', 'Curso X', '--link', 'https://exemplo.com/curso']);
  expect(prize.code).toBe(0);
  expect((await cli(['winners', 'redeem', String(draw.id)])).out).toContain('RESGATADO');

  const fixed = [...numbers.slice(0, 18), numbers[19], numbers[18]];
  const c = await cli(['results', 'correct', '--contest', '6000', '--numbers', fixed.join(' '), '--reason', 'ordem trocada']);
  expect([c.code, c.err]).toEqual([0, '']);
  expect(await drawRow(draw.id)).toMatchObject({
    winner_user_id: y.user.id,
    redeemed: false,
    product_name: 'Curso X',
    product_link: 'https://exemplo.com/curso',
  });
  const shown = await cli(['winners', 'show', String(draw.id), '--json']);
  expect(JSON.parse(shown.out)).toMatchObject({ winner_user_id: y.user.id, status: 'NÃO RESGATADO', product_name: 'Curso X' });

  const retraction = await t.services.db('mail_outbox').where({ to_address: x.email, template: 'draw_win_retracted' });
  expect(retraction).toHaveLength(1);
  expect(retraction[0].body_text).toContain(`http://cotaverde.test/resultado/${draw.id}`);
  expect(retraction[0].body_text).toContain('fica sem efeito');
  const announcement = await t.services.db('mail_outbox').where({ to_address: y.email, template: 'draw_won' });
  expect(announcement).toHaveLength(1);
  expect(announcement[0].body_text).toContain(`http://cotaverde.test/resultado/${draw.id}`);
  const audits = await t.services
    .db('audit_log')
    .where({ entity: 'draw', entity_id: String(draw.id) })
    .whereIn('action', ['winner.retracted', 'winner.announced'])
    .orderBy('id');
  expect(audits.map((a) => [a.action, a.data.user_id, a.data.mailed])).toEqual([
    ['winner.retracted', x.user.id, true],
    ['winner.announced', y.user.id, true],
  ]);
  expect(audits[0].data).toMatchObject({ reason: 'ordem trocada', redeemed_before: true });

  // Correcting to the same winner again changes nothing: no mail, no audit of a retraction.
  const same = await cli(['results', 'correct', '--contest', '6000', '--numbers', fixed.join(' '), '--reason', 'de novo']);
  expect(same.code).toBe(0);
  expect(
    await t.services.db('mail_outbox').where({ template: 'draw_win_retracted' }).whereIn('to_address', [x.email, y.email]),
  ).toHaveLength(1);
});

test('results record needs --drawn-at; a contest out of date order is refused (clear message), --force records it', async () => {
  const D = new Date(Date.now() - 30 * DAY);
  const missing = await cli(['results', 'record', '--contest', '6100', '--numbers', real(2651).join(' ')]);
  expect(missing.code).toBe(2);
  expect(missing.err).toMatch(/a opção obrigatória '--drawn-at <data-hora>' não foi informada/);
  expect(
    (await cli(['results', 'record', '--contest', '6100', '--numbers', real(2651).join(' '), '--drawn-at', D.toISOString()])).code,
  ).toBe(0);
  // A lower number with a later date: a typo of one or the other.
  const later = new Date(D.getTime() + 2 * DAY).toISOString();
  const refused = await cli(['results', 'record', '--contest', '6090', '--numbers', real(2652).join(' '), '--drawn-at', later]);
  expect(refused.code).toBe(1);
  expect(refused.err).toMatch(
    /^erro \(contest_out_of_order\): O concurso 6090 \(.+\) está fora de ordem: o concurso 6100 já foi registrado com a data .+\. Confira o número e a data do concurso; para registrar mesmo assim, use --force\.\n$/,
  );
  expect(await t.services.db('lottery_results').where({ contest_number: 6090 })).toHaveLength(0);
  const forced = await cli([
    'results',
    'record',
    '--contest',
    '6090',
    '--numbers',
    real(2652).join(' '),
    '--drawn-at',
    later,
    '--force',
    '--json',
  ]);
  expect(forced.code).toBe(0);
  expect(JSON.parse(forced.out)).toMatchObject({ contest_number: 6090, created: true });
  // In order (higher number, later date): recorded.
  expect(
    (
      await cli([
        'results',
        'record',
        '--contest',
        '6101',
        '--numbers',
        real(2653).join(' '),
        '--drawn-at',
        new Date(D.getTime() + 3 * DAY).toISOString(),
      ])
    ).code,
  ).toBe(0);
});

test("the console's 'Registrar resultado': typed numbers need the date; out of order is a 409; another role is refused", async () => {
  const admin = await createUser(t, { admin: true });
  const customer = await createUser(t);
  const D = new Date(Date.now() - 20 * DAY);
  await t.services.results.record({ contest_number: 6200, numbers: real(2654), drawn_at: D }, BY);
  const draw = await makeDraw(t);
  await closeAt(draw.id, new Date(D.getTime() + DAY));
  const body = { contest_number: 6190, numbers: real(2655) };
  const noDate = await t.api('POST', `/api/admin/draws/${draw.id}/result`, { token: admin.token, body });
  expect([noDate.status, noDate.body.error, noDate.body.message]).toEqual([
    400,
    'drawn_at_required',
    'Informe a data e a hora do concurso.',
  ]);
  const late = new Date(D.getTime() + 2 * DAY).toISOString();
  const outOfOrder = await t.api('POST', `/api/admin/draws/${draw.id}/result`, { token: admin.token, body: { ...body, drawn_at: late } });
  expect([outOfOrder.status, outOfOrder.body.error]).toEqual([409, 'contest_out_of_order']);
  expect(outOfOrder.body.message).toMatch(/o concurso 6200 já foi registrado/);
  expect(
    (await t.api('POST', `/api/admin/draws/${draw.id}/result`, { token: customer.token, body: { ...body, drawn_at: late } })).status,
  ).toBe(403);
  expect((await t.api('POST', `/api/admin/draws/${draw.id}/result`, { body: { ...body, drawn_at: late } })).status).toBe(401);
  const ok = await t.api('POST', `/api/admin/draws/${draw.id}/result`, {
    token: admin.token,
    body: { ...body, contest_number: 6201, drawn_at: late },
  });
  expect(ok.status).toBe(201);
  expect((await drawRow(draw.id)).contest_number).toBe(6201);
});

test('a draw decided with no winner reads so in winners show, and winners list --no-winner lists it', async () => {
  const D = new Date(Date.now() - 10 * DAY);
  const empty = await makeDraw(t, { title: 'Rodada vazia' });
  await closeAt(empty.id, new Date(D.getTime() - 3600_000));
  await t.services.results.record({ contest_number: 6300, numbers: real(2656), drawn_at: D }, BY);
  expect(await drawRow(empty.id)).toMatchObject({ status: 'drawn', no_winner: true });
  const show = await cli(['winners', 'show', String(empty.id)]);
  expect(show.code).toBe(0);
  expect(show.out).toContain(`sorteio #${empty.id} (Rodada vazia) concurso 6300: SEM VENCEDOR`);
  expect(show.out).not.toMatch(/ainda não tem vencedor/);
  const json = JSON.parse((await cli(['winners', 'show', String(empty.id), '--json'])).out);
  expect(json).toMatchObject({ draw_id: empty.id, no_winner: true, contest_number: 6300, status: 'SEM VENCEDOR' });
  const list = await cli(['winners', 'list', '--no-winner', '--json']);
  expect(list.code).toBe(0);
  const page = JSON.parse(list.out);
  expect(page.items.map((i: { draw_id: number }) => i.draw_id)).toContain(empty.id);
  expect(page.items.every((i: { no_winner: boolean }) => i.no_winner)).toBe(true);
  const text = await cli(['winners', 'list', '--no-winner']);
  expect(text.out).toContain('SEM VENCEDOR');
  const bad = await cli(['winners', 'list', '--no-winner', '--redeemed']);
  expect(bad.code).toBe(2);
  // An undecided draw is still "not decided".
  const open = await makeDraw(t);
  expect((await cli(['winners', 'show', String(open.id)])).code).toBe(1);
});

test('without PUBLIC_URL, a process on the same database links to the address the web process announced', async () => {
  const had = fs.existsSync(WEB_URL_FILE) ? fs.readFileSync(WEB_URL_FILE) : null;
  const env = childProcessEnv(t);
  delete env.PUBLIC_URL;
  try {
    announceWebUrl('http://127.0.0.1:4567', t.services.config.databaseUrl);
    const config = loadConfig(env);
    expect(config.publicUrl).toBe('http://127.0.0.1:4567');
    // Another database's announcement is not this one's.
    expect(loadConfig({ ...env, DATABASE_URL: `${t.services.config.databaseUrl}x` }).publicUrl).toBe(`http://localhost:${config.port}`);
    // The CLI's winner mail, from services built as the CLI builds them.
    const s = createServices({ config });
    try {
      const D = new Date(Date.now() - 5 * DAY);
      const draw = await makeDraw(t);
      const w = await createUser(t);
      const numbers = real(2657);
      await sellDirectly(t, draw.id, w.user.id, [numbers[19]]);
      await closeAt(draw.id, new Date(D.getTime() - 3600_000));
      await s.results.record({ contest_number: 6400, numbers, drawn_at: D }, BY);
      const mail = await t.services.db('mail_outbox').where({ to_address: w.email, template: 'draw_won' }).first();
      expect(mail.body_text).toContain(`http://127.0.0.1:4567/resultado/${draw.id}`);
      expect(mail.body_text).not.toContain('localhost:3000');
    } finally {
      await s.close();
    }
  } finally {
    if (had) fs.writeFileSync(WEB_URL_FILE, had);
    else fs.rmSync(WEB_URL_FILE, { force: true });
  }
});
