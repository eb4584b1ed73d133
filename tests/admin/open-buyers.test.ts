import fs from 'node:fs';
import path from 'node:path';
import { AA_TEXT, contrastRatio, flatten } from '../helpers/contrast';
import { createUser, type TestContext } from '../helpers/context';
import { adminContext, type TestUser } from './setup';
import { makeDraw, makeProductWithDraw } from '../draws/fixtures';
import { writeAppConfig } from '../../src/platform/app-config';
import { buyersCsv, centsForCsv, csvField, csvFileName, numbersCsv, toCsv } from '../../web/src/pages/admin/openBuyersCsv';
import { sell } from './history-fixtures';

/**
 * Active raffle buyers (the console's '/admin/sorteiosAtivos'): GET
 * /api/admin/dashboard/open-buyers with the spec's shape (draw_id, sold, remaining, buyers,
 * numbers), and the client-side CSV.
 */

describe('CSV export (pure functions)', () => {
  test('UTF-8 BOM, ";" separated, CRLF, quoting only when needed, inner quotes doubled', () => {
    expect(
      toCsv([
        ['a', 'b'],
        ['c', 1],
      ]),
    ).toBe('\uFEFFa;b\r\nc;1\r\n');
    expect(csvField('Maria; José')).toBe('"Maria; José"');
    expect(csvField('O "Rei"')).toBe('"O ""Rei"""');
    expect(csvField('linha1\nlinha2')).toBe('"linha1\nlinha2"');
    expect(csvField('João, o Ágil')).toBe('João, o Ágil');
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
    expect(csvField(0)).toBe('0');
  });

  test('a field that starts like a formula is neutralized', () => {
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvField('+5511')).toBe("'+5511");
    expect(csvField('-1')).toBe("'-1");
    expect(csvField('@soma')).toBe("'@soma");
    expect(csvField('a=b')).toBe('a=b');
  });

  test('amounts as pt-BR decimals without thousands separator', () => {
    expect(centsForCsv(0)).toBe('0,00');
    expect(centsForCsv(5)).toBe('0,05');
    expect(centsForCsv(123456)).toBe('1234,56');
    expect(centsForCsv(-250)).toBe('-2,50');
  });

  test('buyers and numbers files', () => {
    const buyers = buyersCsv([
      { user_id: 1, name: 'Ana; "Aninha"', email: 'ana@example.com', phone: '41999998888', count: 2, numbers: [3, 10], total_cents: 1050 },
      { user_id: 2, name: 'Bruno', email: 'b@example.com', phone: null, count: 1, numbers: [0], total_cents: 0 },
    ]);
    expect(buyers).toBe(
      '\uFEFFNome;E-mail;Telefone;Quantidade;Números;Total (R$)\r\n' +
        '"Ana; ""Aninha""";ana@example.com;41999998888;2;03 10;10,50\r\n' +
        'Bruno;b@example.com;;1;00;0,00\r\n',
    );
    const numbers = numbersCsv([
      { n: 0, status: 'sold', user_id: 2, name: 'Bruno', email: 'b@example.com' },
      { n: 1, status: 'reserved', user_id: null, name: null, email: null },
      { n: 2, status: 'available', user_id: null, name: null, email: null },
    ]);
    expect(numbers).toBe('\uFEFFNúmero;Situação;Nome;E-mail\r\n00;Vendido;Bruno;b@example.com\r\n01;Reservado;;\r\n02;Disponível;;\r\n');
    // The BOM makes the bytes start EF BB BF.
    expect([...Buffer.from(numbers, 'utf8').subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(csvFileName('buyers', 7)).toBe('compradores-sorteio-007.csv');
    expect(csvFileName('numbers', 1234)).toBe('numeros-sorteio-1234.csv');
  });
});

describe('GET /api/admin/dashboard/open-buyers', () => {
  let t: TestContext;
  let admin: TestUser;
  beforeAll(async () => ({ t, admin } = await adminContext()));
  afterAll(() => t.close());
  const api = (path: string) => t.api('GET', path, { token: admin.token });

  test('no open main draw: an empty answer with draw_id null', async () => {
    const r = await api('/api/admin/dashboard/open-buyers');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      draw_id: null,
      title: null,
      total_numbers: 0,
      sold: 0,
      remaining: 0,
      price_cents: null,
      buyers: [],
      numbers: [],
    });
  });

  test("the main series' open draw: buyers by name with numbers and what they paid, every number with its buyer", async () => {
    const { product, draw } = await makeProductWithDraw(t, { price_cents: 300 }, { total_numbers: 10, max_per_user: 0 });
    await writeAppConfig(t.services.db, { main_infoproduct_id: product.id });
    t.services.readCache.invalidateAll();
    const zoe = await createUser(t, { name: 'Zoé Compradora' });
    const ana = await createUser(t, { name: 'Ana Compradora' });
    const rui = await createUser(t, { name: 'Rui Reembolsado' });
    await sell(t, draw.id, zoe.user.id, [4, 2], { source: 'pix', amountCents: 600 });
    await sell(t, draw.id, zoe.user.id, [9], { source: 'voucher' });
    await sell(t, draw.id, ana.user.id, [0], { source: 'admin', amountCents: 0 });
    // A sale voided by a refund while the draw was open: the number is free again.
    await sell(t, draw.id, rui.user.id, [5], { source: 'pix', amountCents: 300, paymentStatus: 'refunded', voided: true });
    const hold = await t.api('POST', '/api/reservations', { token: rui.token, body: { draw_id: draw.id, numbers: [7] } });
    expect(hold.status).toBe(201);

    const r = await api('/api/admin/dashboard/open-buyers');
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.body).toMatchObject({ draw_id: draw.id, title: draw.title, total_numbers: 10, sold: 4, remaining: 6, price_cents: 300 });
    expect(r.body.buyers).toEqual([
      { user_id: ana.user.id, name: 'Ana Compradora', email: ana.email, phone: '41999998888', count: 1, numbers: [0], total_cents: 0 },
      {
        user_id: zoe.user.id,
        name: 'Zoé Compradora',
        email: zoe.email,
        phone: '41999998888',
        count: 3,
        numbers: [2, 4, 9],
        total_cents: 900,
      },
    ]);
    expect(r.body.numbers).toHaveLength(10);
    expect(r.body.numbers[0]).toEqual({ n: 0, status: 'sold', user_id: ana.user.id, name: 'Ana Compradora', email: ana.email });
    expect(r.body.numbers[5]).toEqual({ n: 5, status: 'available', user_id: null, name: null, email: null });
    // A hold shows as reserved, never with the holder's identity.
    expect(r.body.numbers[7]).toEqual({ n: 7, status: 'reserved', user_id: null, name: null, email: null });

    // Another draw by id; 404 and 400.
    const other = await makeDraw(t, { status: 'closed', total_numbers: 3 });
    const byId = await api(`/api/admin/dashboard/open-buyers?draw_id=${other.id}`);
    expect(byId.body).toMatchObject({ draw_id: other.id, total_numbers: 3, sold: 0, remaining: 3, buyers: [] });
    const missing = await api('/api/admin/dashboard/open-buyers?draw_id=987654321');
    expect([missing.status, missing.body]).toEqual([404, { error: 'draw_not_found', message: 'Sorteio não encontrado.' }]);
    const bad = await api('/api/admin/dashboard/open-buyers?draw_id=abc');
    expect([bad.status, bad.body.message]).toEqual([400, 'Sorteio inválido.']);
  });

  test('anonymous 401, customer 403', async () => {
    const u = await createUser(t);
    expect((await t.api('GET', '/api/admin/dashboard/open-buyers')).status).toBe(401);
    const r = await t.api('GET', '/api/admin/dashboard/open-buyers', { token: u.token });
    expect([r.status, r.body]).toEqual([403, { error: 'forbidden', message: 'Acesso restrito a administradores.' }]);
  });
});

describe('colours of the admin history pages (WCAG AA)', () => {
  const css = fs.readFileSync(path.resolve(__dirname, '../../web/src/pages/admin/admin-history.css'), 'utf8');
  const SURFACE = '#0d1a13';

  test('14 buyer colours, each with its dark text at AA or better', () => {
    const rules = [...css.matchAll(/\.adm-c(\d+)\s*\{\s*background:\s*(#[0-9a-f]{6});\s*color:\s*(#[0-9a-f]{3,6});\s*\}/g)];
    expect(rules.map((m) => Number(m[1]))).toEqual(Array.from({ length: 14 }, (_, i) => i));
    for (const [, n, bg, fg] of rules) expect([n, contrastRatio(fg, bg) >= AA_TEXT]).toEqual([n, true]);
  });

  test('prize tags and the active tab text on the card surface', () => {
    // RESGATADO: bright green on its tint; NÃO RESGATADO / FECHADO: amber on its tint; active tab bright green.
    expect(contrastRatio('#34d27b', flatten('rgba(52, 210, 123, 0.14)', SURFACE))).toBeGreaterThanOrEqual(AA_TEXT);
    expect(contrastRatio('#f5a623', flatten('rgba(245, 166, 35, 0.12)', SURFACE))).toBeGreaterThanOrEqual(AA_TEXT);
    expect(contrastRatio('#34d27b', '#07110c')).toBeGreaterThanOrEqual(AA_TEXT);
    expect(css).toContain('color: var(--green-bright)');
  });
});
