import { createTestContext, type TestContext } from '../helpers/context';
import { runCliCaptured, STACK } from '../helpers/cli';
import { startTestWorker } from '../helpers/worker';
import { registerJobHandlers } from '../../jobs/registry';
import { eventually } from '../helpers/eventually';
import { JOB_NAMES } from '../../src/platform/queue';
import type { QueueStatus } from '../../src/shared/api/ops';

/** `queues status` and `queues retry <job type> [--failed]`, against a real queue. */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

const cli = (argv: string[]) => runCliCaptured(argv, () => t.services);

async function statusJson(): Promise<QueueStatus> {
  const r = await cli(['queues', 'status', '--json']);
  expect(r).toMatchObject({ code: 0, err: '' });
  return JSON.parse(r.out);
}
const row = (s: QueueStatus, name: string) => s.types.find((x) => x.name === name)!;

test('status lists every job type with zero counts on an empty queue', async () => {
  const s = await statusJson();
  expect(s.types.map((x) => x.name)).toEqual([...JOB_NAMES]);
  for (const x of s.types) expect(x).toEqual({ name: x.name, waiting: 0, active: 0, delayed: 0, failed: 0, completed: 0 });
  expect(s.failed).toEqual([]);
  const text = await cli(['queues', 'status']);
  expect(text.code).toBe(0);
  expect(text.out).toMatch(/^tipo de job\s+aguardando\s+ativos\s+adiados\s+com falha\s+concluídos\n/);
  expect(text.out).toMatch(/\nmail\.send\s+0\s+0\s+0\s+0\s+0\n/);
  expect(text.out).toContain('jobs com falha: nenhum');
});

test('status counts per type and shows failed jobs with their last error; retry --failed re-queues them', async () => {
  // A worker whose coupon.sync fails (the partner is down), and which completes mail.sweep.
  const handlers = registerJobHandlers(t.services);
  const worker = await startTestWorker(t, {
    schedules: [],
    handlers: {
      ...handlers,
      'coupon.sync': async () => {
        throw new Error('parceiro fora do ar (HTTP 503)');
      },
    },
  });
  try {
    await t.services.queue.enqueue('coupon.sync', { userId: 1 }, { attempts: 1 });
    await t.services.queue.enqueue('coupon.sync', { userId: 2 }, { attempts: 1 });
    await t.services.queue.enqueue('mail.sweep', {});
    await eventually(
      async () => {
        const s = await t.services.ops.queueStatus();
        return row(s, 'coupon.sync').failed === 2 && row(s, 'mail.sweep').completed === 1;
      },
      'two failures and one completion',
      20_000,
    );
  } finally {
    await worker.close();
  }
  // Nobody runs these now.
  await t.services.queue.enqueue('mail.send', { outboxId: 424242 }, { delay: 3_600_000 });
  await t.services.queue.enqueue('reservation.sweep', {});

  const s = await statusJson();
  expect(row(s, 'coupon.sync')).toEqual({ name: 'coupon.sync', waiting: 0, active: 0, delayed: 0, failed: 2, completed: 0 });
  expect(row(s, 'mail.sweep')).toMatchObject({ completed: 1, failed: 0 });
  expect(row(s, 'mail.send')).toMatchObject({ delayed: 1, waiting: 0 });
  expect(row(s, 'reservation.sweep')).toMatchObject({ waiting: 1 });
  expect(s.failed).toHaveLength(2);
  for (const f of s.failed) {
    expect(f).toMatchObject({ name: 'coupon.sync', attempts: 1, error: 'parceiro fora do ar (HTTP 503)' });
    expect(Date.parse(f.failed_at!)).toBeGreaterThan(Date.now() - 60_000);
  }

  const text = await cli(['queues', 'status']);
  expect(text.code).toBe(0);
  expect(text.out).toMatch(/\ncoupon\.sync\s+0\s+0\s+0\s+2\s+0\n/);
  expect(text.out).toContain('jobs com falha (2):');
  expect(text.out).toContain('parceiro fora do ar (HTTP 503)');

  // retry --failed: the failed ones go back to waiting (attempts reset); delayed ones are left alone.
  const retry = await cli(['queues', 'retry', 'coupon.sync', '--failed']);
  expect(retry).toEqual({ code: 0, out: 'coupon.sync: 2 com falha reenfileirados\n', err: '' });
  const after = await statusJson();
  expect(row(after, 'coupon.sync')).toMatchObject({ failed: 0, waiting: 2 });
  expect(after.failed).toEqual([]);

  const none = await cli(['queues', 'retry', 'mail.send', '--failed', '--json']);
  expect(none.code).toBe(0);
  expect(JSON.parse(none.out)).toEqual([{ name: 'mail.send', retried: 0, promoted: 0 }]);
  expect(row(await statusJson(), 'mail.send')).toMatchObject({ delayed: 1 });

  // Without --failed the delayed ones run now too.
  const now = await cli(['queues', 'retry', 'mail.send', '--json']);
  expect(JSON.parse(now.out)).toEqual([{ name: 'mail.send', retried: 0, promoted: 1 }]);
  expect(row(await statusJson(), 'mail.send')).toMatchObject({ delayed: 0, waiting: 1 });
  const plain = await cli(['queues', 'retry', 'mail.send']);
  expect(plain).toEqual({ code: 0, out: 'mail.send: 0 com falha reenfileirados, 0 adiantados\n', err: '' });
});

test('unknown job type: exit 1, message on stderr naming the known types, nothing on stdout', async () => {
  const r = await cli(['queues', 'retry', 'mail.nada', '--failed']);
  expect(r.code).toBe(1);
  expect(r.out).toBe('');
  expect(r.err).toMatch(/^erro: tipo de job desconhecido: 'mail\.nada' \(tipos: mail\.send, /);
  expect(r.err).not.toMatch(STACK);
});

test('usage errors and --help', async () => {
  const missing = await cli(['queues', 'retry']);
  expect(missing.code).toBeGreaterThan(0); // commander's usage error (2 where the CLI maps usage errors)
  expect(missing.err).toMatch(/falta o argumento obrigatório 'tipo'/);
  const badLimit = await cli(['queues', 'status', '--limit', '0']);
  expect(badLimit.code).toBe(1);
  expect(badLimit.err).toBe('erro: --limit deve ser um inteiro entre 1 e 1000\n');
  const help = await cli(['queues', '--help']);
  expect(help.code).toBe(0);
  expect(help.out).toMatch(/status/);
  expect(help.out).toMatch(/retry/);
  const retryHelp = await cli(['queues', 'retry', '--help']);
  expect(retryHelp.out).toMatch(/--failed/);
});
