import { z } from 'zod';
import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { makeProductWithDraw, sellDirectly } from '../draws/fixtures';
import { Id } from '../../src/platform/validation';
import { parseId } from '../../src/shared/validation';

/**
 * Every /api answer is JSON (404 under any letter case, 405 for a wrong method), validation
 * messages are Portuguese, ids follow one rule, and draw counts add up.
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ serveWeb: true, env: { RATE_LIMIT_DISABLED: 'true' } });
});
afterAll(() => t.close());

const isJson = (r: { headers: Headers }) => expect(r.headers.get('content-type')).toMatch(/^application\/json/);

describe('unknown paths and wrong methods under /api answer JSON', () => {
  test.each(['/api/x', '/API/x', '/Api/draws/1/nope', '/api', '/API', '/api/nope.js'])(
    'GET %s → 404 JSON (never the SPA shell)',
    async (path) => {
      const r = await t.api('GET', path);
      expect(r.status).toBe(404);
      isJson(r);
      expect(r.body).toEqual({ error: 'route_not_found', message: 'Rota não encontrada.' });
    },
  );

  test.each([
    ['DELETE', '/api/health', 'GET'],
    ['POST', '/api/draws', 'GET'],
    ['PUT', '/api/reservations', 'POST'],
    ['GET', '/api/auth/login', 'POST'],
    ['PATCH', '/api/payments/7/status', 'GET'],
  ])('%s %s → 405 JSON with Allow', async (method, path, allowed) => {
    const r = await t.api(method, path);
    expect(r.status).toBe(405);
    isJson(r);
    expect(r.body).toEqual({ error: 'method_not_allowed', message: 'Método não permitido para esta rota.' });
    expect(r.headers.get('allow')).toContain(allowed);
  });

  test('another spelling of a known path is no path at all (RULES H2): POST /API/HEALTH → 404 JSON', async () => {
    const r = await t.api('POST', '/API/HEALTH');
    expect(r.status).toBe(404);
    isJson(r);
    expect(r.body).toEqual({ error: 'route_not_found', message: 'Rota não encontrada.' });
  });

  test('a method no route knows (PROPFIND) is JSON too', async () => {
    const r = await t.api('PROPFIND', '/api/health');
    expect(r.status).toBeGreaterThanOrEqual(400);
    isJson(r);
    expect(r.body).toEqual(expect.objectContaining({ error: expect.any(String), message: expect.any(String) }));
  });

  test('a plain OPTIONS lists the allowed methods as JSON', async () => {
    const r = await t.api('OPTIONS', '/api/reservations');
    expect(r.status).toBe(200);
    isJson(r);
    expect(r.body.allow).toEqual(expect.arrayContaining(['POST']));
  });

  test('a page path outside /api still gets the SPA (or its 404), not the API answer', async () => {
    const r = await t.api('GET', '/apiario');
    expect(r.body?.error).not.toBe('route_not_found');
  });
});

describe('the id rule', () => {
  test.each(['1', '42', '9007199254740991'])('%s is an id', (v) => expect(parseId(v)).toBe(Number(v)));
  test.each(['0', '01', '-1', '+1', '1.0', '1.5', '1e3', '0x0f', ' 1', '1 ', '', '9007199254740992', '99999999999999999999', 'abc', '١'])(
    '%p is not an id',
    (v) => expect(parseId(v)).toBeNull(),
  );
  test('a JSON number is judged by its value', () => {
    expect(parseId(12)).toBe(12);
    for (const v of [0, -1, 1.5, Number.MAX_SAFE_INTEGER + 1, NaN, Infinity, true, null, undefined, [1], { id: 1 }])
      expect(parseId(v)).toBeNull();
  });
  test('as a schema it answers the message it was given', () => {
    const r = Id('Sorteio inválido.').safeParse('0x0f');
    expect(r.success).toBe(false);
    expect(r.error?.issues[0].message).toBe('Sorteio inválido.');
    expect(Id().parse('15')).toBe(15);
  });
});

/** Words only zod's English messages use. */
const ENGLISH = /\b(too big|too small|expected|invalid input|received|unrecognized|must be|required|string|number|array|object)\b/i;

describe('validation messages are Portuguese', () => {
  test('zod issues without a message of ours use Portuguese (customError over the pt-BR locale)', () => {
    const schema = z.object({
      s: z.string().max(3),
      n: z.number().int().min(2).max(5),
      a: z.array(z.number()).min(1).max(2),
      e: z.enum(['a', 'b']),
      m: z.string().email(),
      r: z.string().regex(/^x$/),
      k: z.number().multipleOf(3),
      b: z.boolean(),
      u: z.union([z.string(), z.number()]),
      o: z.object({ x: z.string() }).strict(),
      d: z.iso.date(),
      req: z.string(),
    });
    const r = schema.safeParse({
      s: 'abcd',
      n: 1.5,
      a: [],
      e: 'c',
      m: 'x',
      r: 'y',
      k: 4,
      b: 'no',
      u: null,
      o: { x: 'a', y: 1 },
      d: '2020-13-40',
    });
    expect(r.success).toBe(false);
    const messages = r.error!.issues.map((i) => i.message);
    expect(messages.length).toBeGreaterThanOrEqual(12);
    for (const m of messages) expect([m, ENGLISH.test(m)]).toEqual([m, false]);
    expect(messages).toEqual(
      expect.arrayContaining(['Use no máximo 3 caracteres.', 'Informe pelo menos 1 item.', 'E-mail inválido.', 'Campo obrigatório.']),
    );
    expect(z.number().max(1000).safeParse(5000).error?.issues[0].message).toBe('O valor máximo é 1000.');
  });

  const BODIES = [
    {},
    [],
    { numbers: 'x' },
    { draw_id: 'x'.repeat(300), numbers: Array(2000).fill(1) },
    { quantity: 1e9, infoproduct_id: '0x0f', amount_cents_total: -1 },
  ];
  const POSTS = [
    '/api/auth/register',
    '/api/auth/login',
    '/api/auth/reset-password',
    '/api/auth/reset-password/confirm',
    '/api/reservations',
    '/api/vouchers/consume',
    '/api/payments/infoproduct',
    '/api/payments/pix',
    '/api/purchases/confirm',
  ];
  test.each(POSTS)('no validation answer of POST %s carries English text', async (path) => {
    const { token } = await createUser(t);
    for (const b of BODIES) {
      const r = await t.api('POST', path, { token, body: b });
      expect([path, r.status]).toEqual([path, expect.any(Number)]);
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
      const texts = [r.body.message, ...((r.body.details ?? []) as Array<{ message: string }>).map((d) => d.message)];
      for (const m of texts) expect([path, JSON.stringify(b), m, ENGLISH.test(m)]).toEqual([path, JSON.stringify(b), m, false]);
    }
  });

  test('query validation is Portuguese too', async () => {
    for (const path of ['/api/infoproducts?limit=5000', '/api/draws?limit=0', '/api/draws?status=x', '/api/infoproducts?category=%20%24']) {
      const r = await t.api('GET', path);
      expect(r.status).toBe(400);
      const texts = [r.body.message, ...(r.body.details ?? []).map((d: { message: string }) => d.message)];
      for (const m of texts) expect([path, m, ENGLISH.test(m)]).toEqual([path, m, false]);
    }
  });
});

describe('draw counts', () => {
  test('sold counts sales, reserved holds, taken only other unavailability: total − sold − reserved − taken is what is free', async () => {
    const { draw, product } = await makeProductWithDraw(t, {}, { total_numbers: 20 });
    const buyer = await createUser(t);
    await sellDirectly(t, draw.id, buyer.user.id, [0, 1, 2]);
    const holder = await createUser(t);
    const res = await t.api('POST', '/api/reservations', { token: holder.token, body: { draw_id: draw.id, numbers: [5, 6] } });
    expect(res.status).toBe(201);

    const free = await t.services.db('draw_numbers').where({ draw_id: draw.id, status: 'available' }).count<{ c: string }[]>({ c: '*' });
    const reads = [
      (await t.api('GET', `/api/draws/${draw.id}`)).body,
      (await t.api('GET', `/api/draws?infoproduct_id=${product.id}`)).body.items[0],
      (await t.api('GET', `/api/infoproducts/${product.id}/open-draw`)).body.draw,
    ];
    for (const d of reads) {
      expect(d.counts).toEqual({ sold: 3, reserved: 2, taken: 0 });
      expect(d.total_numbers - d.counts.sold - d.counts.reserved - d.counts.taken).toBe(Number(free[0].c));
    }
    expect(Number(free[0].c)).toBe(15);
  });
});
