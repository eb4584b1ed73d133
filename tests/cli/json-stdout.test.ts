import os from 'node:os';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { childProcessEnv, createTestContext, createUser, type TestContext } from '../helpers/context';
import { buildCli } from '../../cli/index';
import { MARK } from '../helpers/cli-json-runner';
import { startFakeLottery, REAL_CONTESTS, type FakeLottery } from '../helpers/fake-lottery';
import { makeDraw, makeProductWithDraw, sellDirectly } from '../draws/fixtures';
import { buyEbooks, makeProduct } from '../payments/fixtures';
import type { Command } from 'commander';

/**
 * With --json, every CLI command writes exactly one JSON document to stdout and its logs to
 * stderr (operators' scripts parse stdout). Runs every command that has --json in a real process
 * (the CLI's own services and logger, LOG_LEVEL=info so that the services do log) and parses each
 * command's stdout whole with JSON.parse.
 */
let t: TestContext;
let fake: FakeLottery;
beforeAll(async () => {
  fake = await startFakeLottery();
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1', LOTTERY_API_URL: fake.url } });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

const ROOT = path.resolve(__dirname, '../..');

function runAll(commands: string[][]): Promise<Array<{ argv: string[]; out: string; err: string; code: number }>> {
  return new Promise((resolve, reject) => {
    const env = childProcessEnv(t, { LOG_LEVEL: 'info', LOTTERY_API_URL: fake.url, PUBLIC_URL: 'http://cotaverde.test' });
    const c = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'tests/helpers/cli-json-runner.ts'), JSON.stringify(commands)], {
      cwd: ROOT,
      env,
    });
    let out = '';
    let err = '';
    c.stdout.on('data', (d) => (out += d));
    c.stderr.on('data', (d) => (err += d));
    c.on('error', reject);
    c.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`runner exited ${code}: ${err.slice(-2000)}`));
      const outs = out.split(new RegExp(`\\n${MARK}\\d+\\n`)).slice(1);
      const errs = err.split(new RegExp(`\\n${MARK}\\d+\\n`)).slice(1);
      resolve(
        commands.map((argv, i) => {
          const m = new RegExp(`\\n${MARK}exit:(\\d+)\\n$`).exec(errs[i]);
          // eslint-disable-next-line no-control-regex -- the runner's exit marker starts with \u0001 on purpose (no output can contain it)
          return { argv, out: outs[i], err: errs[i].replace(/\n\u0001cli-json-runner:exit:\d+\n$/, ''), code: m ? Number(m[1]) : -1 };
        }),
      );
    });
  });
}

/** Every leaf command of the CLI that takes --json. */
function jsonCommands(): string[] {
  const found: string[] = [];
  const walk = (c: Command, p: string[]) => {
    for (const s of c.commands) {
      const pp = [...p, s.name()];
      if (s.commands.length) walk(s, pp);
      else if (s.options.some((o) => o.long === '--json')) found.push(pp.join(' '));
    }
  };
  walk(
    buildCli(() => {
      throw new Error('not used');
    }),
    [],
  );
  return found.sort();
}

test('every command with --json writes one JSON document to stdout; its logs go to stderr', async () => {
  const pad = (n: number) => String(n).padStart(2, '0');
  const buyer = await createUser(t);
  const other = await createUser(t);
  const { product } = await makeProductWithDraw(t, { price_cents: 500 }, { total_numbers: 100, max_per_user: 0 });
  const pix = await buyEbooks(t, buyer.token, product.id, 1, 500);
  const pix2 = await buyEbooks(t, other.token, product.id, 2, 500);
  // Approved by 'payments approve' below, then refunded by 'payments refund'.
  const pix3 = await buyEbooks(t, other.token, product.id, 1, 500);
  await t.services.db('payments').where({ id: pix2.paymentId }).update({ flagged_for_review: true, review_reason: 'teste do --json' });
  // A decided draw with a winner (for winners show/set-prize/redeem and results correct).
  const contest = 2650;
  const numbers = REAL_CONTESTS[String(contest)].map(Number);
  const drawnAt = new Date(Date.now() - 3 * 86_400_000);
  const decided = await makeDraw(t);
  await sellDirectly(t, decided.id, buyer.user.id, [numbers[19]]);
  await sellDirectly(t, decided.id, other.user.id, [numbers[18]]);
  await t.services
    .db('draws')
    .where({ id: decided.id })
    .update({ status: 'closed', closed_at: new Date(drawnAt.getTime() - 3600_000) });
  await t.services.results.record({ contest_number: 7000, numbers, drawn_at: drawnAt }, { actorUserId: null, actor: 'cli', source: 'cli' });
  const toClose = await makeDraw(t);
  const typed = REAL_CONTESTS['2651'].map(Number);
  const fixed = [...numbers.slice(0, 18), numbers[19], numbers[18]];

  const byCommand: Record<string, string[][]> = {
    'db migrate': [['db', 'migrate', '--status', '--json']],
    'db backup': [['db', 'backup', '--out', path.join(os.tmpdir(), `cv-json-${process.pid}-${Date.now()}.cvbak`), '--json']],
    'users create-admin': [
      [
        'users',
        'create-admin',
        '--email',
        `adm-${Date.now()}@example.com`,
        '--password',
        'senha-muito-segura-1',
        '--name',
        'Admin Json',
        '--json',
      ],
    ],
    'users list': [['users', 'list', '--limit', '5', '--json']],
    'users show': [['users', 'show', buyer.email, '--json']],
    'users promote': [['users', 'promote', other.email, '--json']],
    'users demote': [['users', 'demote', other.email, '--json']],
    'users mfa-reset': [['users', 'mfa-reset', (await createUser(t)).email, '--json']],
    'vouchers grant': [['vouchers', 'grant', '--user', buyer.email, '--product', String(product.id), '--quantity', '1', '--json']],
    'payments approve': [
      ['payments', 'approve', String(pix.paymentId), '--json'],
      ['payments', 'approve', String(pix3.paymentId), '--json'],
    ],
    'payments refund': [['payments', 'refund', String(pix3.paymentId), '--reason', 'teste do --json', '--json']],
    'payments list': [['payments', 'list', '--limit', '5', '--json']],
    'payments show': [['payments', 'show', String(pix.paymentId), '--json']],
    'payments review': [['payments', 'review', String(pix2.paymentId), '--note', 'conferido', '--json']],
    'payments recheck': [
      ['payments', 'recheck', '--since', '1', '--json'],
      ['payments', 'recheck', '--id', String(pix.paymentId), '--json'],
    ],
    'mail list': [['mail', 'list', '--limit', '5', '--json']],
    'coupons show': [['coupons', 'show', buyer.email, '--json']],
    'coupons adjust': [['coupons', 'adjust', buyer.email, '--cents', '100', '--reason', 'teste json', '--json']],
    'winners list': [
      ['winners', 'list', '--json'],
      ['winners', 'list', '--no-winner', '--json'],
    ],
    'winners show': [['winners', 'show', String(decided.id), '--json']],
    'winners set-prize': [['winners', 'set-prize', String(decided.id), '--name', 'Curso', '--link', 'https://exemplo.com/c', '--json']],
    'winners redeem': [['winners', 'redeem', String(decided.id), '--json']],
    'draws list': [['draws', 'list', '--limit', '5', '--json']],
    'draws show': [['draws', 'show', String(decided.id), '--json']],
    'draws open': [['draws', 'open', '--product', String((await makeProduct(t)).id), '--json']],
    'draws close': [['draws', 'close', String(toClose.id), '--json']],
    'draws reopen': [['draws', 'reopen', String(toClose.id), '--json']],
    'results record': [
      [
        'results',
        'record',
        '--contest',
        '7001',
        '--numbers',
        typed.map(pad).join(' '),
        '--drawn-at',
        new Date(drawnAt.getTime() + 2 * 86_400_000).toISOString(),
        '--json',
      ],
    ],
    'results correct': [
      ['results', 'correct', '--contest', '7000', '--numbers', fixed.map(pad).join(' '), '--reason', 'ordem trocada', '--json'],
    ],
    'results fetch': [['results', 'fetch', '--contest', '2660', '--json']],
    'results show': [['results', 'show', '7000', '--json']],
    'queues status': [['queues', 'status', '--json']],
    'queues retry': [['queues', 'retry', 'mail.send', '--failed', '--json']],
    'autopay runs': [['autopay', 'runs', '--json']],
    'autopay run': [['autopay', 'run', String(decided.id), '--json']],
    'audit books': [['audit', 'books', '--json']],
  };
  // Every command with --json is in the table (a new one must be added here).
  expect(Object.keys(byCommand).sort()).toEqual(jsonCommands());

  const runs = await runAll(Object.values(byCommand).flat());
  const problems: string[] = [];
  for (const r of runs) {
    let doc: unknown;
    try {
      doc = JSON.parse(r.out);
    } catch {
      problems.push(
        `${r.argv.join(' ')} (exit ${r.code}): stdout is not one JSON document: ${JSON.stringify(r.out.slice(0, 300))} stderr: ${r.err.slice(0, 300)}`,
      );
      continue;
    }
    if (doc === null || typeof doc !== 'object') problems.push(`${r.argv.join(' ')}: stdout is not a JSON object or array`);
    // audit books answers 1 when an invariant fails; everything else here succeeds.
    if (r.code !== 0 && !(r.argv[0] === 'audit' && r.code === 1))
      problems.push(`${r.argv.join(' ')}: exit ${r.code}: ${r.err.slice(0, 300)}`);
  }
  expect(problems).toEqual([]);
  // The services did log (pino lines, level info) — on stderr, never on stdout.
  const logged = runs.filter((r) => /"level":30/.test(r.err));
  expect(logged.map((r) => r.argv.slice(0, 2).join(' '))).toEqual(
    expect.arrayContaining(['payments approve', 'winners redeem', 'results correct']),
  );
  for (const r of runs) expect(r.out).not.toMatch(/"level":\d+/);
}, 600_000);
