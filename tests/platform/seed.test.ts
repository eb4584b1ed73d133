import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createTestContext, type TestContext } from '../helpers/context';
import { seedDemo, DEMO_PRODUCTS, SEED_SKIPPED } from '../../seeds/demo';
import { DEMO_ACCOUNTS } from '../../seeds/demo-accounts';
import { readAppConfig } from '../../src/platform/app-config';

const ROOT = path.resolve(__dirname, '../..');
const TABLES = ['categories', 'infoproducts', 'draws', 'draw_numbers', 'app_config', 'users', 'domain_events', 'audit_log', 'mail_outbox'];

let t: TestContext;
let first: string;
let second: string;
let countsAfterFirst: Record<string, number>;
let countsAfterSecond: Record<string, number>;

async function counts() {
  const out: Record<string, number> = {};
  for (const table of TABLES) out[table] = Number((await t.services.db(table).count({ n: '*' }))[0].n);
  return out;
}

beforeAll(async () => {
  // serveWeb: the covers are served from public/ like in production
  t = await createTestContext({ serveWeb: true });
  first = await seedDemo(t.services.db);
  countsAfterFirst = await counts();
  second = await seedDemo(t.services.db);
  countsAfterSecond = await counts();
});
afterAll(() => t.close());

test('the first run reports what it created; the second creates nothing and changes no count', () => {
  expect(first).toMatch(/^criados: /);
  expect(first).toContain('categoria lotomania');
  for (const p of DEMO_PRODUCTS) {
    expect(first).toContain(`e-book ${p.sku}`);
    expect(first).toContain(`sorteio aberto de ${p.sku}`);
  }
  for (const a of DEMO_ACCOUNTS) expect(first).toContain(`conta ${a.email}`);
  expect(second).toBe(SEED_SKIPPED);
  expect(countsAfterSecond).toEqual(countsAfterFirst);
});

test("creates the 'lotomania' category", async () => {
  const cats = await t.services.db('categories').where({ slug: 'lotomania' });
  expect(cats).toEqual([expect.objectContaining({ slug: 'lotomania', name: 'Lotomania' })]);
});

test('creates 3 e-books with covers that are served and files whose sha256 matches storage/ebooks', async () => {
  const [cat] = await t.services.db('categories').where({ slug: 'lotomania' });
  const products = await t.services
    .db('infoproducts')
    .whereIn(
      'sku',
      DEMO_PRODUCTS.map((p) => p.sku),
    )
    .orderBy('id');
  expect(products).toHaveLength(3);
  for (const p of products) {
    expect(p).toMatchObject({ category_id: cat.id, active: true, default_total_numbers: 100 });
    expect(p.price_cents).toBeGreaterThan(0);

    // file: a real PDF under storage/, with its hash
    expect(p.file_url).toMatch(/^ebooks\/[a-z0-9-]+\.pdf$/);
    const file = path.join(ROOT, 'storage', p.file_url);
    expect(fs.existsSync(file)).toBe(true);
    const bytes = fs.readFileSync(file);
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(p.file_sha256).toBe(createHash('sha256').update(bytes).digest('hex'));

    // cover: an absolute path under /covers that the app serves
    expect(p.cover_url).toMatch(/^\/covers\/[a-z0-9-]+\.svg$/);
    expect(fs.existsSync(path.join(ROOT, 'public', p.cover_url))).toBe(true);
    const res = await fetch(t.url + p.cover_url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(await res.text()).toContain('<svg');
  }
});

test('opens one draw per e-book, unlimited per user, with 100 available numbers each', async () => {
  const products = await t.services.db('infoproducts').whereIn(
    'sku',
    DEMO_PRODUCTS.map((p) => p.sku),
  );
  for (const p of products) {
    const draws = await t.services.db('draws').where({ infoproduct_id: p.id });
    expect(draws).toHaveLength(1);
    expect(draws[0]).toMatchObject({
      status: 'open',
      max_per_user: 0,
      total_numbers: 100,
      title: p.title,
      prize_cents: p.default_prize_cents,
    });
    const numbers = await t.services.db('draw_numbers').where({ draw_id: draws[0].id }).orderBy('n');
    expect(numbers).toHaveLength(100);
    expect(numbers.map((n) => n.n)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(new Set(numbers.map((n) => n.status))).toEqual(new Set(['available']));
  }
});

test('sets main_infoproduct_id to the first demo e-book', async () => {
  const [main] = await t.services.db('infoproducts').where({ sku: DEMO_PRODUCTS[0].sku });
  const cfg = await readAppConfig(t.services.db);
  expect(cfg.main_infoproduct_id).toBe(main.id);
});

test('creates the demo accounts, who log in with their printed passwords', async () => {
  for (const [i, a] of DEMO_ACCOUNTS.entries()) {
    const r = await t.api('POST', '/api/auth/login', {
      body: { email: a.email, password: a.password },
      headers: { 'x-forwarded-for': `10.55.0.${i + 1}` },
    });
    expect(r.status).toBe(200);
    expect(r.body.user).toMatchObject({ email: a.email, name: a.name, is_admin: a.role === 'admin', role: a.role });
  }
  const admins = DEMO_ACCOUNTS.filter((a) => a.role === 'admin');
  const customers = DEMO_ACCOUNTS.filter((a) => a.role === 'customer');
  expect(admins).toHaveLength(1);
  expect(customers).toHaveLength(1);
});

test('later runs never change what an operator did: a closed draw stays closed, a removed e-book stays removed', async () => {
  const [p0, p1] = await t.services.db('infoproducts').whereIn('sku', [DEMO_PRODUCTS[0].sku, DEMO_PRODUCTS[1].sku]).orderBy('id');
  const open = await t.services.db('draws').where({ infoproduct_id: p0.id, status: 'open' }).first();
  await t.services.db('draws').where({ id: open.id }).update({ status: 'closed', closed_at: new Date() });
  await t.services.db('infoproducts').where({ id: p1.id }).update({ sku: 'EBOOK-DO-OPERADOR', title: 'Renomeado pelo operador' });
  const before = await counts();
  try {
    expect(await seedDemo(t.services.db)).toBe(SEED_SKIPPED);
    expect(await counts()).toEqual(before);
    expect(await t.services.db('draws').where({ infoproduct_id: p0.id, status: 'open' })).toEqual([]);
    expect((await t.services.db('draws').where({ id: open.id }).first()).status).toBe('closed');
    expect(await t.services.db('infoproducts').where({ sku: DEMO_PRODUCTS[1].sku })).toEqual([]);
  } finally {
    await t.services.db('infoproducts').where({ id: p1.id }).update({ sku: p1.sku, title: p1.title });
    await t.services.db('draws').where({ id: open.id }).update({ status: 'open', closed_at: null });
  }
});

test('a database with only an operator’s own rows (no demo rows) is not seeded either', async () => {
  const other = await createTestContext();
  try {
    await other.services.db('categories').insert({ slug: 'do-operador', name: 'Do operador', position: 1 });
    expect(await seedDemo(other.services.db)).toBe(SEED_SKIPPED);
    expect(await other.services.db('infoproducts')).toEqual([]);
    expect(await other.services.db('users')).toEqual([]);
  } finally {
    await other.close();
  }
});

test.each(['production', 'staging'])(
  'refuses to run with NODE_ENV=%s (anything but development/test) and writes nothing',
  async (nodeEnv) => {
    const saved = process.env.NODE_ENV;
    const before = await counts();
    await t.services.db('infoproducts').where({ sku: DEMO_PRODUCTS[2].sku }).update({ sku: 'RENOMEADO' });
    process.env.NODE_ENV = nodeEnv;
    try {
      await expect(seedDemo(t.services.db)).rejects.toThrow('the demo seed never runs in production');
    } finally {
      process.env.NODE_ENV = saved;
      await t.services.db('infoproducts').where({ sku: 'RENOMEADO' }).update({ sku: DEMO_PRODUCTS[2].sku });
    }
    expect(await counts()).toEqual(before);
  },
);
