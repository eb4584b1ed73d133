import { createLotteryClient, LotteryServiceError, parseDataApuracao } from '../../src/results/lottery-client';
import { REAL_CONTESTS, startFakeLottery, type FakeLottery } from '../helpers/fake-lottery';

/** The results adapter against a local fake of the Caixa API serving the real contests 2600-2699. */
let fake: FakeLottery;
beforeAll(async () => {
  fake = await startFakeLottery();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

const client = (o: { timeoutMs?: number; retries?: number } = {}) =>
  createLotteryClient({ apiUrl: fake.url + '/', timeoutMs: o.timeoutMs ?? 2000, retries: o.retries ?? 2, retryBaseMs: 10 });

test('a real contest: the 20 numbers in draw order, the date at 20:00 Brasília', async () => {
  const r = await client().fetchContest(2600);
  expect(r).toEqual({
    status: 'drawn',
    contest_number: 2600,
    drawn_at: new Date('2024-08-02T23:00:00.000Z'),
    numbers: REAL_CONTESTS['2600'].map(Number),
  });
  expect(fake.requests).toEqual(['/lotomania/2600']);
  for (const c of [2645, 2699]) {
    const x = await client().fetchContest(c);
    expect(x.status === 'drawn' && x.numbers).toEqual(REAL_CONTESTS[String(c)].map(Number));
  }
});

test('the latest contest', async () => {
  const r = await client().fetchLatest();
  expect(r).toMatchObject({ status: 'drawn', contest_number: 2699, numbers: REAL_CONTESTS['2699'].map(Number) });
  expect(fake.requests).toEqual(['/lotomania']);
});

test('a contest not yet drawn is a clear result, not an error', async () => {
  const r = await client().fetchContest(2750);
  expect(r).toEqual({
    status: 'not_drawn',
    contest_number: 2750,
    message: 'O concurso 2750 ainda não foi sorteado (sem resultado publicado).',
  });
  // A 404 means the same.
  fake.failNext(1, 404);
  expect((await client().fetchContest(2751)).status).toBe('not_drawn');
});

test('a slow answer times out; with no retry left the error says so', async () => {
  fake.slowNext(1, 800);
  const err = await client({ timeoutMs: 200, retries: 0 })
    .fetchContest(2601)
    .catch((e) => e);
  expect(err).toBeInstanceOf(LotteryServiceError);
  expect(err.message).toBe('O serviço de resultados não respondeu em 200 ms.');
  // A slow first answer, then a quick one: the retry answers.
  fake.slowNext(1, 800);
  const r = await client({ timeoutMs: 200, retries: 1 }).fetchContest(2601);
  expect(r).toMatchObject({ status: 'drawn', contest_number: 2601 });
});

test('a 500 is retried with backoff; fails twice then answers', async () => {
  fake.failNext(2, 500);
  const r = await client({ retries: 2 }).fetchContest(2602);
  expect(r).toMatchObject({ status: 'drawn', contest_number: 2602 });
  expect(fake.requests).toEqual(['/lotomania/2602', '/lotomania/2602', '/lotomania/2602']);
});

test('500 on every attempt: gives up after the retries with a 503-kind error', async () => {
  fake.failNext(3, 503);
  const err = await client({ retries: 2 })
    .fetchContest(2602)
    .catch((e) => e);
  expect(err).toBeInstanceOf(LotteryServiceError);
  expect(err).toMatchObject({
    kind: 'unavailable',
    code: 'lottery_service_unavailable',
    message: 'O serviço de resultados respondeu 503.',
  });
  expect(fake.requests).toHaveLength(3);
});

test.each([
  ['not JSON', '<html>manutenção</html>', /não é JSON/],
  ['no contest number', '{"foo": 1}', /sem número de concurso/],
  [
    '19 numbers',
    JSON.stringify({ numero: 2603, dataApuracao: '05/08/2024', dezenasSorteadasOrdemSorteio: REAL_CONTESTS['2603'].slice(1) }),
    /exatamente 20/,
  ],
  [
    'a repeated number',
    JSON.stringify({
      numero: 2603,
      dataApuracao: '05/08/2024',
      dezenasSorteadasOrdemSorteio: [...REAL_CONTESTS['2603'].slice(1), REAL_CONTESTS['2603'][1]],
    }),
    /distintos/,
  ],
  [
    'another contest',
    JSON.stringify({ numero: 2604, dataApuracao: '05/08/2024', dezenasSorteadasOrdemSorteio: REAL_CONTESTS['2604'] }),
    /concurso 2604, não o 2603/,
  ],
  [
    'a bad date',
    JSON.stringify({ numero: 2603, dataApuracao: '31/02/2024', dezenasSorteadasOrdemSorteio: REAL_CONTESTS['2603'] }),
    /Data de apuração inválida/,
  ],
])('a malformed body (%s) is refused without retry', async (_label, raw, message) => {
  fake.malformedNext(1, raw);
  const err = await client()
    .fetchContest(2603)
    .catch((e) => e);
  expect(err).toBeInstanceOf(LotteryServiceError);
  expect(err.message).toMatch(message);
  expect(fake.requests).toHaveLength(1);
});

test('parseDataApuracao', () => {
  expect(parseDataApuracao('23/11/2026')).toEqual(new Date('2026-11-23T23:00:00Z'));
  expect(parseDataApuracao('2026-11-23')).toBeNull();
  expect(parseDataApuracao('32/01/2026')).toBeNull();
});

test('an invalid contest number is refused before any request', () => {
  expect(() => client().fetchContest(0)).toThrow('Número de concurso inválido.');
  expect(fake.requests).toHaveLength(0);
});
