import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { seedDemo } from '../../seeds/demo';

/**
 * Every API route answers malformed input with a JSON 4xx {error, message}, never a 500 or HTML:
 * a sweep of odd bodies and path/query values over the storefront's and the account area's routes.
 */
let t: TestContext;
let token: string;
beforeAll(async () => {
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: 'true' } });
  await seedDemo(t.services.db);
  token = (await createUser(t)).token;
});
afterAll(() => t.close());

const ODD_BODIES = [
  '[]',
  '"text"',
  '42',
  'null',
  '{"numbers":"1,2"}',
  '{"draw_id":-1,"numbers":[1.5]}',
  '{"infoproduct_id":"x","quantity":1e9}',
  '{"payment_id":[],"reservationId":{}}',
];
const POSTS = [
  '/api/auth/register',
  '/api/auth/login',
  '/api/auth/reset-password',
  '/api/auth/reset-password/confirm',
  '/api/auth/login/mfa',
  '/api/auth/mfa/enable',
  '/api/auth/mfa/disable',
  '/api/auth/confirm-admin-email',
  '/api/reservations',
  '/api/vouchers/consume',
  '/api/payments/infoproduct',
  '/api/payments/pix',
  '/api/purchases/confirm',
];
const ODD_IDS = ['abc', '-1', '0', '1.5', '99999999999999999999', '%27%3B--', '..%2F..%2Fetc'];

test.each(POSTS)('POST %s with odd bodies → JSON 4xx', async (path) => {
  for (const raw of ODD_BODIES) {
    const r = await t.api('POST', path, { token, rawBody: raw });
    expect([path, raw, r.status >= 400 && r.status < 500]).toEqual([path, raw, true]);
    expect(r.body).toEqual(expect.objectContaining({ error: expect.any(String), message: expect.any(String) }));
  }
});

test.each([
  '/api/draws/%s',
  '/api/draws/%s/numbers',
  '/api/numbers?draw_id=%s',
  '/api/vouchers/remaining?draw_id=%s',
  '/api/payments/%s/status',
  '/api/infoproducts/%s',
  '/api/infoproducts/%s/open-draw?include=numbers',
  '/api/draws?infoproduct_id=%s',
  '/api/infoproducts?limit=%s',
  '/api/auth/confirm-admin-email?token=%s',
])('GET %s with odd ids → JSON 4xx', async (pattern) => {
  for (const id of ODD_IDS) {
    const r = await t.api('GET', pattern.replace('%s', id), { token });
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
    expect(r.body).toEqual(expect.objectContaining({ error: expect.any(String), message: expect.any(String) }));
  }
});

/**
 * One id rule for every route (docs/DECISIONS.md "One id rule"): decimal integers ≥ 1 only, in
 * paths, queries and bodies. Each refusal is a 400 naming the problem in Portuguese, never a 404 of
 * a coerced id.
 */
describe('the id rule on every route', () => {
  const BAD_IDS = ['0x0f', '1e3', '01', '-1', '1.0', '0', '+1', '9007199254740992', '99999999999999999999'];
  let admin: string;
  beforeAll(async () => {
    admin = (await createUser(t, { admin: true })).token;
  });

  test.each([
    ['GET', '/api/draws/%s'],
    ['GET', '/api/draws/%s/numbers'],
    ['GET', '/api/numbers?draw_id=%s'],
    ['GET', '/api/vouchers/remaining?draw_id=%s'],
    ['GET', '/api/payments/%s/status'],
    ['GET', '/api/draws?infoproduct_id=%s'],
    ['GET', '/api/infoproducts/%s'],
    ['GET', '/api/infoproducts/%s/open-draw'],
    ['POST', '/api/infoproducts/%s/ensure-open-draw'],
    ['POST', '/api/admin/payments/%s/approve'],
  ])('%s %s refuses non-decimal ids with 400', async (method, pattern) => {
    for (const id of BAD_IDS) {
      const r = await t.api(method, pattern.replace('%s', encodeURIComponent(id)), { token: pattern.includes('admin') ? admin : token });
      expect([pattern, id, r.status]).toEqual([pattern, id, 400]);
      expect(r.body).toEqual(
        expect.objectContaining({
          error: 'validation_error',
          message: expect.stringMatching(/inválid|Informe/),
          details: expect.any(Array),
        }),
      );
    }
    // A well-formed id that does not exist is a 404 (or an empty answer), never a 400.
    const r = await t.api(method, pattern.replace('%s', '987654321'), { token: pattern.includes('admin') ? admin : token });
    expect([pattern, r.status === 400]).toEqual([pattern, false]);
  });

  const BAD_BODY_IDS: unknown[] = [...BAD_IDS, -1, 0, 1.5, 2 ** 53, 1e20, true, [], {}, ''];
  test.each([
    ['/api/reservations', 'draw_id', { numbers: [1] }],
    ['/api/vouchers/consume', 'reservationId', { numbers: [1] }],
    ['/api/vouchers/consume', 'reservation_id', { numbers: [1] }],
    ['/api/vouchers/consume', 'draw_id', { reservationId: 1, numbers: [1] }],
    ['/api/payments/infoproduct', 'infoproduct_id', { quantity: 1, amount_cents_total: 700 }],
    ['/api/payments/pix', 'reservationId', {}],
    ['/api/payments/pix', 'reservation_id', {}],
    ['/api/purchases/confirm', 'payment_id', {}],
    ['/api/purchases/confirm', 'infoproduct_id', { payment_id: 1 }],
  ])('POST %s refuses a bad %s with 400 naming the field', async (path, field, rest) => {
    for (const id of BAD_BODY_IDS) {
      const r = await t.api('POST', path, { token, body: { ...rest, [field]: id } });
      expect([path, field, id, r.status]).toEqual([path, field, id, 400]);
      expect(r.body.error).toBe('validation_error');
      expect(r.body.details.map((d: { path: string }) => d.path)).toContain(field);
    }
  });
});
