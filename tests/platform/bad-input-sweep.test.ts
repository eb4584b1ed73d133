import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { seedDemo } from '../../seeds/demo';

/**
 * Every API route answers malformed input with a JSON 4xx {error, message}, never a 500 or HTML:
 * a sweep of odd bodies and path/query values over the routes of issues 2-4.
 */
let t: TestContext;
let token: string;
beforeAll(async () => {
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: 'true' } });
  await seedDemo(t.services.db);
  token = (await createUser(t)).token;
});
afterAll(() => t.close());

const ODD_BODIES = ['[]', '"text"', '42', 'null', '{"numbers":"1,2"}', '{"draw_id":-1,"numbers":[1.5]}', '{"infoproduct_id":"x","quantity":1e9}', '{"payment_id":[],"reservationId":{}}'];
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
])('GET %s with odd ids → JSON 4xx', async (pattern) => {
  for (const id of ODD_IDS) {
    const r = await t.api('GET', pattern.replace('%s', id), { token });
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
    expect(r.body).toEqual(expect.objectContaining({ error: expect.any(String), message: expect.any(String) }));
  }
});
