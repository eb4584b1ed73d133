import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { makeCategory, makeProductWithDraw } from '../draws/fixtures';
import { writeAppConfig } from '../../src/platform/app-config';
import { reaisToCents } from '../../src/catalogue/admin';
import { jsonOrText } from '../helpers/http';

/**
 * The admin console's e-books ('Cadastro de Infoprodutos'): CRUD with prices typed in
 * reais, archive, PDF and cover uploads checked by their bytes, against the real app, database
 * and a private e-book storage. The uploaded PDF reaches a buyer only through the customer-area
 * download.
 */
const PDF = fs.readFileSync(path.resolve(__dirname, '../../storage/ebooks/financas-em-dia.pdf'));
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from('0000000d49484452', 'hex'),
  Buffer.alloc(64, 1),
]);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(64, 2)]);
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x40, 0, 0, 0]), Buffer.from('WEBPVP8 '), Buffer.alloc(64, 3)]);
const SVG = Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
const EBOOK_MAX = 64 * 1024;
const COVER_MAX = 16 * 1024;

let t: TestContext;
let admin: Awaited<ReturnType<typeof createUser>>;
let customer: Awaited<ReturnType<typeof createUser>>;
let ebookDir: string;
let coverDir: string;
beforeAll(async () => {
  ebookDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cv-admin-ebooks-'));
  coverDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cv-admin-covers-'));
  t = await createTestContext({
    env: {
      RATE_LIMIT_DISABLED: '1',
      EBOOK_STORAGE_DIR: ebookDir,
      COVER_STORAGE_DIR: coverDir,
      EBOOK_MAX_UPLOAD_BYTES: String(EBOOK_MAX),
      COVER_MAX_UPLOAD_BYTES: String(COVER_MAX),
    },
  });
  admin = await createUser(t, { admin: true });
  customer = await createUser(t);
});
afterAll(async () => {
  await t.close();
  fs.rmSync(ebookDir, { recursive: true, force: true });
  fs.rmSync(coverDir, { recursive: true, force: true });
});

const api = (method: string, p: string, body?: unknown) => t.api(method, p, { token: admin.token, body });
const auditOf = (id: number, action: string, entity = 'infoproduct') =>
  t.services
    .db('audit_log')
    .where({ entity, entity_id: String(id), action })
    .orderBy('id');
let seq = 0;
const sku = () => `EBOOK-T${++seq}-${Date.now().toString(36)}`;

async function upload(p: string, bytes: Buffer, o: { token?: string; filename?: string; type?: string; field?: string } = {}) {
  const form = new FormData();
  form.append(
    o.field ?? 'file',
    new Blob([new Uint8Array(bytes)], { type: o.type ?? 'application/octet-stream' }),
    o.filename ?? 'arquivo.bin',
  );
  const headers: Record<string, string> = {};
  const token = o.token === undefined ? admin.token : o.token;
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(t.url + p, { method: 'POST', headers, body: form });
  const text = await res.text();
  const body = jsonOrText(text);
  return { status: res.status, body, headers: res.headers };
}

async function create(body: Record<string, unknown> = {}) {
  const r = await api('POST', '/api/admin/infoproducts', { sku: sku(), title: 'E-book de teste', price: '2,00', ...body });
  expect([r.status, r.body.message]).toEqual([201, undefined]);
  return r.body as { id: number; sku: string; title: string; open_draw_id: number | null; price_cents: number };
}

describe('reaisToCents', () => {
  test.each([
    ['19,90', 1990],
    ['19.90', 1990],
    ['R$ 1.234,56', 123456],
    ['1234', 123400],
    ['0,5', 50],
    [19.9, 1990],
    [19.999, NaN],
    [-1, NaN],
    ['19,999', NaN],
    ['1.234', NaN],
    ['abc', NaN],
    ['-5', NaN],
    ['', null],
    [null, null],
  ])('%j → %j', (input, cents) => {
    expect(reaisToCents(input)).toEqual(cents);
  });
});

describe('POST /api/admin/infoproducts', () => {
  test('creates from reais as typed, opens its draw, audits, and the store shows it at once', async () => {
    const cat = await makeCategory(t, { slug: `cat-${Date.now().toString(36)}`, name: 'Finanças' });
    // Warm the public list: the creation must drop it.
    await t.api('GET', '/api/infoproducts?limit=200');
    const s = sku();
    const r = await api('POST', '/api/admin/infoproducts', {
      sku: s,
      title: '  Guia do Poupador  ',
      subtitle: 'Para começar',
      description: '',
      price: 'R$ 19,90',
      prize: '1.500,00',
      total_numbers: '50',
      category_slug: cat.slug,
      cover_url: '',
      file_url: '/etc/passwd',
    });
    expect(r.status).toBe(201);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.body).toMatchObject({
      sku: s,
      title: 'Guia do Poupador',
      subtitle: 'Para começar',
      description: null,
      cover_url: null,
      price_cents: 1990,
      default_prize_cents: 150000,
      prize_cents: 150000,
      default_total_numbers: 50,
      total_numbers: 50,
      active: true,
      category_id: cat.id,
      category_slug: cat.slug,
      has_file: false,
      // The file is set only by the upload.
      file_url: null,
      file_sha256: null,
      draws_count: 1,
    });
    const draw = await t.services.db('draws').where({ id: r.body.open_draw_id }).first();
    expect(draw).toMatchObject({
      infoproduct_id: r.body.id,
      status: 'open',
      total_numbers: 50,
      prize_cents: 150000,
      title: 'Guia do Poupador',
    });
    expect(
      await t.services
        .db('draw_numbers')
        .where({ draw_id: draw.id })
        .count<{ c: string }[]>({ c: '*' })
        .then((x) => Number(x[0].c)),
    ).toBe(50);
    expect(
      await t.services.db('domain_events').where({ name: 'draw.opened' }).whereRaw(`(payload->>'drawId')::bigint = ?`, [draw.id]),
    ).toHaveLength(1);
    const log = await auditOf(r.body.id, 'infoproduct.created');
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      actor: 'admin',
      actor_user_id: admin.user.id,
      data: { before: null, after: { sku: s, price_cents: 1990, active: true }, opened_draw_id: draw.id },
    });
    const pub = await t.api('GET', '/api/infoproducts?limit=200');
    const item = pub.body.items.find((p: { id: number }) => p.id === r.body.id);
    expect(item).toMatchObject({ price_cents: 1990, draw: { id: draw.id } });
    expect(item).not.toHaveProperty('file_url');
  });

  test('cents aliases win, inactive e-books open no draw, open_draw:false skips it', async () => {
    const a = await api('POST', '/api/admin/infoproducts', {
      sku: sku(),
      name: 'Alias',
      price_cents: 700,
      price: '99,00',
      default_prize_cents: 100,
      default_total_numbers: 10,
      active: false,
    });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({
      title: 'Alias',
      price_cents: 700,
      default_prize_cents: 100,
      default_total_numbers: 10,
      active: false,
      open_draw_id: null,
      draws_count: 0,
    });
    const b = await api('POST', '/api/admin/infoproducts', { sku: sku(), title: 'Sem sorteio', open_draw: false });
    expect(b.body).toMatchObject({
      active: true,
      open_draw_id: null,
      price_cents: null,
      default_prize_cents: 0,
      default_total_numbers: 100,
    });
  });

  test.each([
    [{ title: 'Sem SKU' }, 'Informe o SKU.'],
    [{ sku: 'X-1' }, 'Informe o título.'],
    [{ sku: 'com espaço', title: 'x' }, 'O SKU só pode ter letras sem acento, números, ponto, hífen e sublinhado.'],
    [{ sku: '12345', title: 'x' }, 'O SKU não pode ser só números (seria confundido com o id).'],
    [{ sku: 'X-2', title: 'x', price: 'abc' }, 'Preço inválido. Use reais, por exemplo 19,90.'],
    [{ sku: 'X-3', title: 'x', price: '19,999' }, 'Preço inválido. Use reais, por exemplo 19,90.'],
    [{ sku: 'X-4', title: 'x', price: -1 }, 'Preço inválido. Use reais, por exemplo 19,90.'],
    [{ sku: 'X-5', title: 'x', price_cents: 1.5 }, 'O preço deve ser um número inteiro de centavos, 0 ou mais.'],
    [{ sku: 'X-6', title: 'x', prize: '9999999999' }, 'Prêmio é alto demais.'],
    [{ sku: 'X-7', title: 'x', total_numbers: 0 }, 'A quantidade de números deve ficar entre 1 e 1000.'],
    [{ sku: 'X-8', title: 'x', total_numbers: 1001 }, 'A quantidade de números deve ficar entre 1 e 1000.'],
    [{ sku: 'X-9', title: 'x', category_id: 'abc' }, 'Categoria inválida.'],
    [{ sku: 'X-10', title: 'x', category_id: 999999 }, 'Categoria não encontrada.'],
    [{ sku: 'X-11', title: 'x', category_slug: 'nao-existe' }, 'Categoria não encontrada.'],
    [{ sku: 'X-12', title: 'x', cover_url: 'javascript:alert(1)' }, 'Capa inválida: use um endereço http(s) ou envie uma imagem.'],
    [{ sku: 'X-13', title: 'x', active: 'talvez' }, 'Use verdadeiro ou falso.'],
    [{ sku: 'X-14', title: 'x'.repeat(201) }, 'O título pode ter no máximo 200 caracteres.'],
  ])('%j → 400 %s, nothing written', async (body, message) => {
    const before = await t.services.db('infoproducts').count<{ c: string }[]>({ c: '*' });
    const r = await api('POST', '/api/admin/infoproducts', body);
    expect([r.status, r.body.message]).toEqual([400, message]);
    expect(await t.services.db('infoproducts').count<{ c: string }[]>({ c: '*' })).toEqual(before);
  });

  test('a body that is not an object, or bad JSON → 400; a taken SKU → 409', async () => {
    expect((await api('POST', '/api/admin/infoproducts', [1, 2])).body).toMatchObject({
      error: 'validation_error',
      message: 'Envie um objeto JSON.',
    });
    expect((await t.api('POST', '/api/admin/infoproducts', { token: admin.token, rawBody: '{"sku":' })).status).toBe(400);
    const p = await create();
    const dup = await api('POST', '/api/admin/infoproducts', { sku: p.sku, title: 'Outro' });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ error: 'sku_taken', message: 'Já existe um e-book com este SKU.' });
  });
});

describe('GET /api/admin/infoproducts', () => {
  test('lists archived ones too, searches by title or SKU, paginates, and gives the categories', async () => {
    const a = await create({ title: 'Busca Alfa Zeta' });
    const b = await create({ title: 'Busca Alfa Zeta 2' });
    await api('DELETE', `/api/admin/infoproducts/${a.id}`);
    const r = await api('GET', '/api/admin/infoproducts?search=alfa%20zeta&limit=1');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ hasMore: true, limit: 1, offset: 0 });
    expect(r.body.items.map((p: { id: number }) => p.id)).toEqual([b.id]);
    expect(Array.isArray(r.body.categories)).toBe(true);
    const next = await api('GET', '/api/admin/infoproducts?search=alfa%20zeta&limit=1&offset=1');
    expect(next.body).toMatchObject({ hasMore: false, items: [{ id: a.id, active: false }] });
    expect(
      (await api('GET', `/api/admin/infoproducts?search=${encodeURIComponent(b.sku)}`)).body.items.map((p: { id: number }) => p.id),
    ).toEqual([b.id]);
    expect((await api('GET', '/api/admin/infoproducts?search=alfa%20zeta&active=1')).body.items.map((p: { id: number }) => p.id)).toEqual([
      b.id,
    ]);
    expect((await api('GET', '/api/admin/infoproducts?limit=0')).body.message).toBe('O limite mínimo é 1.');
    expect((await api('GET', '/api/admin/infoproducts?active=x')).status).toBe(400);
    expect((await api('GET', `/api/admin/infoproducts/${b.id}`)).body).toMatchObject({ id: b.id, title: 'Busca Alfa Zeta 2' });
    expect((await api('GET', '/api/admin/infoproducts/99999999')).status).toBe(404);
    expect((await api('GET', '/api/admin/infoproducts/0x10')).body.message).toBe('E-book inválido.');
  });
});

describe('PUT /api/admin/infoproducts/{id}', () => {
  test('updates with before/after in the audit; the store sees the new price at once', async () => {
    const p = await create({ price: '5,00' });
    await t.api('GET', `/api/infoproducts/${p.id}`);
    const r = await api('PUT', `/api/admin/infoproducts/${p.id}`, { price: '7,50', title: 'Novo título', category_id: null });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ price_cents: 750, title: 'Novo título', category_id: null, sku: p.sku });
    const log = await auditOf(p.id, 'infoproduct.updated');
    expect(log).toHaveLength(1);
    expect(log[0].data).toMatchObject({
      before: { price_cents: 500, title: 'E-book de teste' },
      after: { price_cents: 750, title: 'Novo título' },
    });
    expect((await t.api('GET', `/api/infoproducts/${p.id}`)).body).toMatchObject({ price_cents: 750, title: 'Novo título' });
  });

  test('nothing to change 400, bad values 400, unknown 404, taken SKU 409', async () => {
    const p = await create();
    const other = await create();
    expect((await api('PUT', `/api/admin/infoproducts/${p.id}`, {})).body.message).toBe('Nada para alterar.');
    expect((await api('PUT', `/api/admin/infoproducts/${p.id}`, { title: '' })).body.message).toBe('Informe o título.');
    expect((await api('PUT', `/api/admin/infoproducts/${p.id}`, { price: '1,2,3' })).status).toBe(400);
    expect((await api('PUT', '/api/admin/infoproducts/99999999', { title: 'x' })).status).toBe(404);
    expect((await api('PUT', `/api/admin/infoproducts/${p.id}`, { sku: other.sku })).status).toBe(409);
    expect(await auditOf(p.id, 'infoproduct.updated')).toHaveLength(0);
  });
});

describe('DELETE /api/admin/infoproducts/{id} archives', () => {
  test('the product leaves the store lists, its draws and sales stay; reactivating reopens a draw', async () => {
    const { product, draw } = await makeProductWithDraw(t, { price_cents: 300 }, { total_numbers: 5 });
    const buyer = await createUser(t);
    const pay = await t.api('POST', '/api/payments/infoproduct', {
      token: buyer.token,
      body: { infoproduct_id: product.id, quantity: 1, amount_cents_total: 300 },
    });
    expect(pay.status).toBe(201);
    await t.services.payments.approveSandbox(pay.body.paymentId, { via: 'cli' });
    expect((await t.api('GET', '/api/infoproducts?limit=200')).body.items.map((p: { id: number }) => p.id)).toContain(product.id);
    const sections = async () =>
      (await t.api('GET', '/api/infoproducts/sections')).body.flatMap((s: { items: Array<{ product: { id: number } }> }) =>
        s.items.map((i) => i.product.id),
      );

    const r = await api('DELETE', `/api/admin/infoproducts/${product.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: product.id, active: false });
    expect((await t.api('GET', '/api/infoproducts?limit=200')).body.items.map((p: { id: number }) => p.id)).not.toContain(product.id);
    expect(await sections()).not.toContain(product.id);
    expect(await t.services.db('draws').where({ id: draw.id }).first()).toMatchObject({ id: draw.id, infoproduct_id: product.id });
    expect(await t.services.db('payments').where({ id: pay.body.paymentId }).first()).toMatchObject({ status: 'approved' });
    // RULES D8: its open draw closed with it (an admin's close, audited, with its event), so it is not the current draw.
    expect(await t.services.db('draws').where({ id: draw.id }).first()).toMatchObject({ status: 'closed', closed_by: 'admin' });
    const closedLog = await auditOf(draw.id, 'draw.closed_by_archive', 'draw');
    expect(closedLog).toHaveLength(1);
    expect(closedLog[0]).toMatchObject({ actor_user_id: admin.user.id });
    expect(closedLog[0].data).toMatchObject({ infoproduct_id: product.id, before: { status: 'open' }, after: { status: 'closed' } });
    expect(
      await t.services.db('domain_events').where({ name: 'draw.closed' }).whereRaw(`(payload->>'drawId')::bigint = ?`, [draw.id]),
    ).toHaveLength(1);
    expect((await t.api('GET', '/api/config')).body.current_draw_id).not.toBe(draw.id);
    expect((await api('GET', '/api/admin/dashboard/summary')).body.draw_id).not.toBe(draw.id);
    // A new draw cannot be opened for it by a customer.
    expect((await t.api('POST', `/api/infoproducts/${product.id}/ensure-open-draw`, { token: buyer.token })).status).toBe(409);
    const log = await auditOf(product.id, 'infoproduct.archived');
    expect(log).toHaveLength(1);
    expect(log[0].data).toMatchObject({ before: { active: true }, after: { active: false }, closed_draw_id: draw.id });
    // Archiving again changes nothing and writes nothing.
    expect((await api('DELETE', `/api/admin/infoproducts/${product.id}`)).status).toBe(200);
    expect(await auditOf(product.id, 'infoproduct.archived')).toHaveLength(1);

    const back = await api('PUT', `/api/admin/infoproducts/${product.id}`, { active: true });
    expect(back.body).toMatchObject({ active: true, draws_count: 2 });
    expect(back.body.open_draw_id).not.toBeNull();
    expect((await t.api('GET', '/api/infoproducts?limit=200')).body.items.map((p: { id: number }) => p.id)).toContain(product.id);
  });

  test('PUT {active: false} closes its open draw too; an archived e-book left with an open draw is never the current draw', async () => {
    const { product, draw } = await makeProductWithDraw(t, { price_cents: 400 }, { total_numbers: 5 });
    const r = await api('PUT', `/api/admin/infoproducts/${product.id}`, { active: false });
    expect(r.status).toBe(200);
    expect((await t.services.db('draws').where({ id: draw.id }).first()).status).toBe('closed');
    expect(await auditOf(draw.id, 'draw.closed_by_archive', 'draw')).toHaveLength(1);
    expect((await auditOf(product.id, 'infoproduct.updated'))[0].data).toMatchObject({ closed_draw_id: draw.id });

    // Data from before this rule: an inactive e-book whose draw is open, the newest open draw.
    const legacy = await makeProductWithDraw(t, { price_cents: 900 }, { total_numbers: 5 });
    await t.services.db('infoproducts').where({ id: legacy.product.id }).update({ active: false });
    t.services.readCache.invalidateAll();
    const cfg = await t.api('GET', '/api/config');
    expect(cfg.body.current_draw_id).not.toBe(legacy.draw.id);
    expect(cfg.body.ticket_price_cents).not.toBe(900);
    expect((await api('GET', '/api/admin/dashboard/summary')).body.draw_id).not.toBe(legacy.draw.id);
    // Archiving it now closes that draw.
    expect((await api('DELETE', `/api/admin/infoproducts/${legacy.product.id}`)).status).toBe(200);
    expect((await t.services.db('draws').where({ id: legacy.draw.id }).first()).status).toBe('closed');
  });

  test('archiving: anonymous 401, customer 403, nothing closes', async () => {
    const { product, draw } = await makeProductWithDraw(t, {}, { total_numbers: 5 });
    expect((await t.api('DELETE', `/api/admin/infoproducts/${product.id}`)).status).toBe(401);
    expect((await t.api('DELETE', `/api/admin/infoproducts/${product.id}`, { token: customer.token })).status).toBe(403);
    expect((await t.api('DELETE', '/api/admin/infoproducts/abc', { token: admin.token })).status).toBe(400);
    expect((await t.services.db('draws').where({ id: draw.id }).first()).status).toBe('open');
  });

  test('the main series cannot be archived (409), unknown 404', async () => {
    const p = await create();
    await writeAppConfig(t.services.db, { main_infoproduct_id: p.id });
    const r = await api('DELETE', `/api/admin/infoproducts/${p.id}`);
    expect(r.status).toBe(409);
    expect(r.body.error).toBe('main_series');
    expect((await api('PUT', `/api/admin/infoproducts/${p.id}`, { active: false })).status).toBe(409);
    await writeAppConfig(t.services.db, { main_infoproduct_id: null });
    expect((await api('DELETE', '/api/admin/infoproducts/99999999')).status).toBe(404);
  });
});

describe('POST /api/admin/infoproducts/{id}/file', () => {
  test('a PDF is stored privately with its sha256; a buyer downloads it from the customer area, others cannot, nobody publicly', async () => {
    const p = await create({ price: '2,00' });
    const r = await upload(`/api/admin/infoproducts/${p.id}/file`, PDF, { filename: 'livro.pdf', type: 'application/pdf' });
    expect(r.status).toBe(200);
    const sha = createHash('sha256').update(PDF).digest('hex');
    expect(r.body).toMatchObject({ id: p.id, has_file: true, file_sha256: sha });
    expect(r.body.file_url).toMatch(/^ip\d+-[0-9a-f]{16}\.pdf$/);
    expect(fs.readFileSync(path.join(ebookDir, r.body.file_url)).equals(PDF)).toBe(true);
    expect(await t.services.db('infoproducts').where({ id: p.id }).first()).toMatchObject({ file_sha256: sha, file_url: r.body.file_url });
    const log = await auditOf(p.id, 'infoproduct.file_uploaded');
    expect(log).toHaveLength(1);
    expect(log[0].data).toMatchObject({
      before: { file_url: null, file_sha256: null },
      after: { file_sha256: sha },
      size: PDF.length,
      original_name: 'livro.pdf',
    });

    // Nobody reaches it as a public file.
    for (const pub of [`/${r.body.file_url}`, `/ebooks/${r.body.file_url}`, `/storage/ebooks/${r.body.file_url}`]) {
      const res = await fetch(t.url + pub);
      expect([pub, res.status]).toEqual([pub, 404]);
    }
    const download = (token?: string) =>
      fetch(`${t.url}/api/ebooks/${p.sku}/download`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    expect((await download()).status).toBe(401);
    expect((await download(customer.token)).status).toBe(403);

    // A buyer: the e-book paid by sandbox PIX, then the customer-area link.
    const buyer = await createUser(t);
    const pay = await t.api('POST', '/api/payments/infoproduct', {
      token: buyer.token,
      body: { infoproduct_id: p.id, quantity: 1, amount_cents_total: 200 },
    });
    expect(pay.status).toBe(201);
    await t.services.payments.approveSandbox(pay.body.paymentId, { via: 'cli' });
    const res = await download(buyer.token);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(PDF)).toBe(true);
    const link = await t.api('GET', `/api/ebooks/by-draw/${p.open_draw_id}`, { token: buyer.token });
    expect(link.status).toBe(200);
    const viaLink = await fetch(t.url + link.body.url);
    expect(viaLink.status).toBe(200);
    expect(
      createHash('sha256')
        .update(Buffer.from(await viaLink.arrayBuffer()))
        .digest('hex'),
    ).toBe(sha);
    expect((await t.api('GET', `/api/ebooks/by-draw/${p.open_draw_id}`, { token: customer.token })).status).toBe(403);

    // A new PDF replaces it (the old file leaves the storage).
    const v2 = Buffer.concat([PDF, Buffer.from('\n% v2\n')]);
    const r2 = await upload(`/api/admin/infoproducts/${p.id}/file`, v2, { filename: 'livro-v2.pdf' });
    expect(r2.status).toBe(200);
    expect(r2.body.file_sha256).toBe(createHash('sha256').update(v2).digest('hex'));
    expect(fs.existsSync(path.join(ebookDir, r.body.file_url))).toBe(false);
    expect(Buffer.from(await (await download(buyer.token)).arrayBuffer()).equals(v2)).toBe(true);
  });

  test('a fake PDF (by its bytes), an empty or missing file → 400; too large → 413; nothing stored', async () => {
    const p = await create();
    const fake = await upload(`/api/admin/infoproducts/${p.id}/file`, PNG, { filename: 'capa.pdf', type: 'application/pdf' });
    expect([fake.status, fake.body]).toEqual([400, { error: 'not_a_pdf', message: 'O arquivo não é um PDF.' }]);
    const html = await upload(`/api/admin/infoproducts/${p.id}/file`, Buffer.from('<html>%PDF-</html>'), {
      filename: 'x.pdf',
      type: 'application/pdf',
    });
    expect(html.status).toBe(400);
    const big = await upload(
      `/api/admin/infoproducts/${p.id}/file`,
      Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(EBOOK_MAX + 10, 0x20)]),
      { filename: 'grande.pdf' },
    );
    expect(big.status).toBe(413);
    expect(big.body).toEqual({ error: 'payload_too_large', message: 'O arquivo pode ter no máximo 1 MB.' });
    const empty = await upload(`/api/admin/infoproducts/${p.id}/file`, Buffer.alloc(0), { filename: 'vazio.pdf' });
    expect(empty.status).toBe(400);
    const json = await api('POST', `/api/admin/infoproducts/${p.id}/file`, { file: 'JVBERi0=' });
    expect(json.status).toBe(400);
    expect(json.body.error).toBe('file_required');
    const two = new FormData();
    two.append('file', new Blob([new Uint8Array(PDF)]), 'a.pdf');
    two.append('file', new Blob([new Uint8Array(PDF)]), 'b.pdf');
    const twoRes = await fetch(`${t.url}/api/admin/infoproducts/${p.id}/file`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin.token}` },
      body: two,
    });
    expect(twoRes.status).toBe(400);
    expect((await upload('/api/admin/infoproducts/99999999/file', PDF)).status).toBe(404);
    expect((await upload('/api/admin/infoproducts/abc/file', PDF)).status).toBe(400);
    expect(await t.services.db('infoproducts').where({ id: p.id }).first()).toMatchObject({ file_url: null, file_sha256: null });
    expect(fs.readdirSync(ebookDir).filter((f) => f.startsWith(`ip${p.id}-`))).toEqual([]);
    expect(await auditOf(p.id, 'infoproduct.file_uploaded')).toHaveLength(0);
  });

  test('anonymous 401 and customer 403 with a real multipart upload; nothing stored', async () => {
    const p = await create();
    expect((await upload(`/api/admin/infoproducts/${p.id}/file`, PDF, { token: '' })).status).toBe(401);
    const c = await upload(`/api/admin/infoproducts/${p.id}/file`, PDF, { token: customer.token });
    expect([c.status, c.body]).toEqual([403, { error: 'forbidden', message: 'Acesso restrito a administradores.' }]);
    expect((await upload(`/api/admin/infoproducts/${p.id}/cover`, PNG, { token: customer.token })).status).toBe(403);
    expect(await t.services.db('infoproducts').where({ id: p.id }).first()).toMatchObject({ file_url: null });
  });
});

describe('POST /api/admin/infoproducts/{id}/cover', () => {
  test.each([
    ['png', PNG, 'image/png'],
    ['jpg', JPEG, 'image/jpeg'],
    ['webp', WEBP, 'image/webp'],
  ])('a %s cover (told by its bytes) becomes the public product image', async (ext, bytes, type) => {
    const p = await create();
    await t.api('GET', '/api/infoproducts?limit=200');
    const r = await upload(`/api/admin/infoproducts/${p.id}/cover`, bytes as Buffer, { filename: 'capa.bin', type: 'text/plain' });
    expect(r.status).toBe(200);
    expect(r.body.cover_url).toMatch(new RegExp(`^/api/covers/ip${p.id}-[0-9a-f]{16}\\.${ext}$`));
    const img = await fetch(t.url + r.body.cover_url);
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toBe(type);
    expect(img.headers.get('x-content-type-options')).toBe('nosniff');
    expect(img.headers.get('cache-control')).toContain('immutable');
    expect(Buffer.from(await img.arrayBuffer()).equals(bytes as Buffer)).toBe(true);
    const pub = await t.api('GET', '/api/infoproducts?limit=200');
    expect(pub.body.items.find((x: { id: number }) => x.id === p.id).cover_url).toBe(r.body.cover_url);
    expect(await auditOf(p.id, 'infoproduct.cover_uploaded')).toHaveLength(1);
  });

  test('SVG is refused (documented), so are other files and oversized ones; unknown cover names 404', async () => {
    const p = await create();
    const svg = await upload(`/api/admin/infoproducts/${p.id}/cover`, SVG, { filename: 'capa.svg', type: 'image/svg+xml' });
    expect([svg.status, svg.body]).toEqual([
      400,
      { error: 'svg_not_accepted', message: 'Capas em SVG não são aceitas. Envie PNG, JPEG ou WebP.' },
    ]);
    const pdf = await upload(`/api/admin/infoproducts/${p.id}/cover`, PDF, { filename: 'capa.png', type: 'image/png' });
    expect([pdf.status, pdf.body.error]).toEqual([400, 'not_an_image']);
    const big = await upload(`/api/admin/infoproducts/${p.id}/cover`, Buffer.concat([PNG, Buffer.alloc(COVER_MAX, 0)]), {
      filename: 'capa.png',
    });
    expect(big.status).toBe(413);
    expect((await t.services.db('infoproducts').where({ id: p.id }).first()).cover_url).toBeNull();
    for (const name of ['nada.png', 'ip1-0000000000000000.png', '..%2F..%2Fetc%2Fpasswd', 'ip1-0000000000000000.svg']) {
      const r = await t.api('GET', `/api/covers/${name}`);
      expect([name, r.status, r.body.error]).toEqual([name, 404, expect.any(String)]);
    }
  });
});

describe('races', () => {
  test('parallel reactivations, customers opening its draw and uploads of one e-book: one open draw, no 500', async () => {
    const p = await create({ active: false });
    const buyer = await createUser(t);
    const calls = [
      ...Array.from({ length: 4 }, () => api('PUT', `/api/admin/infoproducts/${p.id}`, { active: true, open_draw: true })),
      ...Array.from({ length: 4 }, () => t.api('POST', `/api/infoproducts/${p.id}/ensure-open-draw`, { token: buyer.token })),
      ...Array.from({ length: 2 }, (_, i) =>
        upload(`/api/admin/infoproducts/${p.id}/file`, Buffer.concat([PDF, Buffer.from(`\n% ${i}\n`)]), { filename: `v${i}.pdf` }),
      ),
    ];
    const answers = await Promise.all(calls);
    for (const a of answers) expect([200, 409]).toContain(a.status);
    expect(answers.slice(0, 4).every((a) => a.status === 200)).toBe(true);
    expect(await t.services.db('draws').where({ infoproduct_id: p.id, status: 'open' })).toHaveLength(1);
    // The stored hash is the hash of the file on disk, whichever upload won.
    const row = await t.services.db('infoproducts').where({ id: p.id }).first();
    expect(
      createHash('sha256')
        .update(fs.readFileSync(path.join(ebookDir, row.file_url)))
        .digest('hex'),
    ).toBe(row.file_sha256);
  });
});
