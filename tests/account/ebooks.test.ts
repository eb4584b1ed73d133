import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { seedDemo } from '../../seeds/demo';
import { makeDraw, sellDirectly } from '../draws/fixtures';
import { LINK_TTL_SECONDS } from '../../src/catalogue/ebooks';
import type { EbookLink } from '../../src/shared/api/account';

/**
 * E-book delivery: GET /api/ebooks/by-draw/{drawId} (a signed ≤ 10 min link) and
 * GET /api/ebooks/{sku}/download (bearer or signed link), with the demo seed's real PDFs
 * served from a private EBOOK_STORAGE_DIR and checked against file_sha256.
 */
const SEED_DIR = path.resolve(__dirname, '../../storage/ebooks');
let dir: string;
let t: TestContext;
let financas: { id: number; sku: string; title: string; file_sha256: string };
let drawId: number;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cv-ebooks-'));
  for (const f of fs.readdirSync(SEED_DIR)) fs.copyFileSync(path.join(SEED_DIR, f), path.join(dir, f));
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1', EBOOK_STORAGE_DIR: dir } });
  await seedDemo(t.services.db);
  financas = await t.services.db('infoproducts').where({ sku: 'EBOOK-FINANCAS' }).first();
  drawId = (await t.services.db('draws').where({ infoproduct_id: financas.id, status: 'open' }).first()).id;
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A buyer of Finanças em Dia: one e-book paid by sandbox PIX. */
async function buyer() {
  const u = await createUser(t);
  const r = await t.api('POST', '/api/payments/infoproduct', {
    token: u.token,
    body: { infoproduct_id: financas.id, quantity: 1, amount_cents_total: 200 },
  });
  expect(r.status).toBe(201);
  await t.services.payments.approveSandbox(r.body.paymentId, { via: 'cli' });
  return { ...u, paymentId: r.body.paymentId as number };
}

async function link(token: string, id = drawId) {
  const r = await t.api('GET', `/api/ebooks/by-draw/${id}`, { token });
  expect(r.status).toBe(200);
  return r.body as EbookLink;
}

async function fetchRaw(p: string, token?: string) {
  return fetch(t.url + p, { headers: token ? { authorization: `Bearer ${token}` } : {} });
}

test('the seed PDFs are real PDFs whose sha256 the catalogue holds', async () => {
  const products = await t.services.db('infoproducts').whereNotNull('file_url').select('file_url', 'file_sha256');
  expect(products).toHaveLength(3);
  for (const p of products) {
    const bytes = fs.readFileSync(path.join(SEED_DIR, path.basename(p.file_url)));
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(p.file_sha256);
  }
});

test('a buyer gets a signed link that downloads the PDF in a new tab, without a bearer header', async () => {
  const u = await buyer();
  const l = await link(u.token);
  expect(l).toMatchObject({ title: 'Finanças em Dia', sku: 'EBOOK-FINANCAS' });
  expect(l.url).toMatch(/^\/api\/ebooks\/EBOOK-FINANCAS\/download\?u=\d+&exp=\d+&sig=[A-Za-z0-9_-]{43}$/);
  const ttl = Date.parse(l.expires_at) - Date.now();
  expect(ttl).toBeGreaterThan(0);
  expect(ttl).toBeLessThanOrEqual(LINK_TTL_SECONDS * 1000);

  const res = await fetchRaw(l.url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/pdf');
  expect(res.headers.get('content-disposition')).toBe('attachment; filename="financas-em-dia.pdf"');
  expect(res.headers.get('cache-control')).toBe('private, no-store');
  const bytes = Buffer.from(await res.arrayBuffer());
  expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
  expect(createHash('sha256').update(bytes).digest('hex')).toBe(financas.file_sha256);

  // The bearer header works too.
  const bearer = await fetchRaw('/api/ebooks/EBOOK-FINANCAS/download', u.token);
  expect(bearer.status).toBe(200);
  expect(Buffer.from(await bearer.arrayBuffer()).equals(bytes)).toBe(true);
});

test("numbers in one of the product's draws make a buyer too; admins may always download", async () => {
  const u = await createUser(t);
  const closed = await makeDraw(t, { infoproduct_id: financas.id, status: 'closed' });
  await sellDirectly(t, closed.id, u.user.id, [12]);
  expect((await t.api('GET', `/api/ebooks/by-draw/${closed.id}`, { token: u.token })).status).toBe(200);
  expect((await fetchRaw('/api/ebooks/EBOOK-FINANCAS/download', u.token)).status).toBe(200);

  const admin = await createUser(t, { admin: true });
  const l = await link(admin.token);
  expect((await fetchRaw(l.url)).status).toBe(200);
});

test('not a buyer: 403; anonymous: 401; unknown draw, draw without e-book or unknown sku: 404; bad ids: 400', async () => {
  const stranger = await createUser(t);
  const by = await t.api('GET', `/api/ebooks/by-draw/${drawId}`, { token: stranger.token });
  expect(by.status).toBe(403);
  expect(by.body).toMatchObject({ error: 'forbidden', message: expect.stringContaining('quem comprou') });
  const dl = await t.api('GET', '/api/ebooks/EBOOK-FINANCAS/download', { token: stranger.token });
  expect(dl.status).toBe(403);

  expect((await t.api('GET', `/api/ebooks/by-draw/${drawId}`)).status).toBe(401);
  const anon = await t.api('GET', '/api/ebooks/EBOOK-FINANCAS/download');
  expect(anon.status).toBe(401);
  expect(anon.body.message).toContain('login');

  expect((await t.api('GET', '/api/ebooks/by-draw/987654', { token: stranger.token })).body).toMatchObject({ error: 'draw_not_found' });
  const generic = await makeDraw(t, {});
  const noBook = await t.api('GET', `/api/ebooks/by-draw/${generic.id}`, { token: stranger.token });
  expect(noBook.status).toBe(404);
  expect(noBook.body.error).toBe('ebook_not_found');
  const unknown = await t.api('GET', '/api/ebooks/NAO-EXISTE/download', { token: stranger.token });
  expect(unknown.status).toBe(404);
  expect(unknown.body).toMatchObject({ error: 'ebook_not_found', message: 'E-book não encontrado.' });

  for (const bad of ['abc', '0', '1.5'])
    expect((await t.api('GET', `/api/ebooks/by-draw/${bad}`, { token: stranger.token })).status).toBe(400);
  // Path tricks never reach the file system: they are not skus.
  for (const bad of ['..%2F..%2Fpackage.json', 'a%20b', '%2E%2E']) {
    const r = await t.api('GET', `/api/ebooks/${bad}/download`, { token: stranger.token });
    // 400 (not a sku) or, when the URL itself normalizes the dots away, no route at all.
    expect([400, 404]).toContain(r.status);
    expect(['validation_error', 'route_not_found']).toContain(r.body.error);
  }
});

describe('the signed link is refused when', () => {
  let u: Awaited<ReturnType<typeof buyer>>;
  let l: EbookLink;
  beforeAll(async () => {
    u = await buyer();
    l = await link(u.token);
  });
  const withParam = (url: string, key: string, value: string) => {
    const x = new URL(url, 'http://x');
    x.searchParams.set(key, value);
    return `${x.pathname}?${x.searchParams}`;
  };

  test('expired (or claiming a life longer than 10 minutes)', async () => {
    const past = Math.floor(Date.now() / 1000) - 1;
    const expired = `/api/ebooks/EBOOK-FINANCAS/download?u=${u.user.id}&exp=${past}&sig=${t.services.ebooks.sign(u.user.id, 'EBOOK-FINANCAS', past)}`;
    const r = await t.api('GET', expired);
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ error: 'link_expired', message: expect.stringContaining('expirou') });
    const far = Math.floor(Date.now() / 1000) + 3600;
    const tooLong = `/api/ebooks/EBOOK-FINANCAS/download?u=${u.user.id}&exp=${far}&sig=${t.services.ebooks.sign(u.user.id, 'EBOOK-FINANCAS', far)}`;
    expect((await t.api('GET', tooLong)).body.error).toBe('link_expired');
  });

  test('tampered: signature, expiry, user or sku changed, or parts missing', async () => {
    const sig = new URL(l.url, 'http://x').searchParams.get('sig') as string;
    const flipped = (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1);
    const exp = Number(new URL(l.url, 'http://x').searchParams.get('exp'));
    const other = await buyer();
    const tampered = [
      withParam(l.url, 'sig', flipped),
      withParam(l.url, 'exp', String(exp - 60)),
      withParam(l.url, 'u', String(other.user.id)),
      l.url.replace('EBOOK-FINANCAS', 'EBOOK-ESTATISTICA'),
      withParam(l.url, 'sig', 'curta'),
      l.url.replace(/&sig=[^&]+/, ''),
    ];
    for (const url of tampered) {
      const r = await t.api('GET', url);
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ error: 'invalid_link', message: 'Link de download inválido.' });
    }
  });

  test('used by another logged-in user', async () => {
    const other = await buyer();
    const r = await t.api('GET', l.url, { token: other.token });
    expect(r.status).toBe(403);
    expect(r.body.error).toBe('invalid_link');
  });

  test('its user lost the right (refund) after it was made', async () => {
    const v = await buyer();
    const fresh = await link(v.token);
    const p = await t.services.db('payments').where({ id: v.paymentId }).first();
    await t.services.payments.applyProviderState(v.paymentId, {
      providerPaymentId: p.provider_payment_id,
      externalReference: String(p.id),
      status: 'refunded',
      amountCents: p.amount_cents,
      paidAt: null,
    });
    const r = await t.api('GET', fresh.url);
    expect(r.status).toBe(403);
    expect(r.body.error).toBe('forbidden');
  });
});

test('a file that does not match its sha256, or is missing, is never served (503, logged)', async () => {
  const u = await buyer();
  const original = fs.readFileSync(path.join(dir, 'financas-em-dia.pdf'));
  try {
    fs.writeFileSync(path.join(dir, 'financas-em-dia.pdf'), Buffer.concat([original, Buffer.from('\n% adulterado\n')]));
    const r = await t.api('GET', '/api/ebooks/EBOOK-FINANCAS/download', { token: u.token });
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ error: 'ebook_unavailable', message: expect.stringContaining('indisponível') });
    fs.rmSync(path.join(dir, 'financas-em-dia.pdf'));
    expect((await t.api('GET', '/api/ebooks/EBOOK-FINANCAS/download', { token: u.token })).status).toBe(503);
  } finally {
    fs.writeFileSync(path.join(dir, 'financas-em-dia.pdf'), original);
  }
  expect((await t.api('GET', '/api/ebooks/EBOOK-FINANCAS/download', { token: u.token })).status).toBe(200);
});

describe('the e-book as a plain link: the session cookie', () => {
  /** Signs in through the real login and returns the cookie it set (name=value) and the whole Set-Cookie. */
  async function signIn(u: { email: string; password: string }, extra: Record<string, unknown> = {}) {
    const r = await t.api('POST', '/api/auth/login', { body: { email: u.email, password: u.password, ...extra } });
    expect(r.status).toBe(200);
    const setCookie = r.headers.get('set-cookie') ?? '';
    return { token: r.body.token as string, setCookie, cookie: setCookie.split(';')[0] };
  }
  const withCookie = (p: string, cookie: string, init: RequestInit = {}) =>
    fetch(t.url + p, { ...init, headers: { cookie, ...(init.headers ?? {}) } });

  test('login sets it HttpOnly, SameSite=Lax, Path=/api, for the session\'s life (a session cookie without "remember"); not Secure outside production', async () => {
    const u = await buyer();
    const s = await signIn(u);
    expect(s.cookie).toBe(`cv_session=${s.token}`);
    expect(s.setCookie).toBe(`cv_session=${s.token}; Path=/api; Max-Age=${30 * 86_400}; HttpOnly; SameSite=Lax`);
    const brief = await signIn(u, { remember: false });
    expect(brief.setCookie).toBe(`cv_session=${brief.token}; Path=/api; HttpOnly; SameSite=Lax`);
    // A failed login sets nothing.
    const bad = await t.api('POST', '/api/auth/login', { body: { email: u.email, password: 'errada-123' } });
    expect([bad.status, bad.headers.get('set-cookie')]).toEqual([401, null]);
  });

  test('GET /api/ebooks/{sku}/download opened as a plain link (no bearer, no signature) works with it', async () => {
    const u = await buyer();
    const { cookie } = await signIn(u);
    expect((await fetch(t.url + '/api/ebooks/EBOOK-FINANCAS/download')).status).toBe(401);
    const res = await withCookie('/api/ebooks/EBOOK-FINANCAS/download', cookie);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(
      createHash('sha256')
        .update(Buffer.from(await res.arrayBuffer()))
        .digest('hex'),
    ).toBe(financas.file_sha256);
    // The cookie's user must have the right like anyone else.
    const stranger = await createUser(t);
    const denied = await withCookie('/api/ebooks/EBOOK-FINANCAS/download', (await signIn(stranger)).cookie);
    expect(denied.status).toBe(403);
    // A tampered or unknown cookie is nobody.
    expect((await withCookie('/api/ebooks/EBOOK-FINANCAS/download', 'cv_session=nao-e-um-token')).status).toBe(401);
  });

  test('a signed link names its own user, whatever cookie the browser holds', async () => {
    const u = await buyer();
    const l = await link(u.token);
    const someoneElse = await signIn(await createUser(t));
    expect((await withCookie(l.url, someoneElse.cookie)).status).toBe(200);
  });

  test('every other route keeps bearer tokens only', async () => {
    const u = await buyer();
    const { cookie } = await signIn(u);
    expect((await withCookie('/api/me', cookie)).status).toBe(401);
    expect((await withCookie(`/api/ebooks/by-draw/${drawId}`, cookie)).status).toBe(401);
    expect((await withCookie('/api/payments/me', cookie)).status).toBe(401);
    const post = await withCookie('/api/reservations', cookie, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ draw_id: drawId, numbers: [1] }),
    });
    expect(post.status).toBe(401);
    expect((await withCookie('/api/auth/logout', cookie, { method: 'POST' })).status).toBe(401);
  });

  test('logout clears it and ends the session behind it', async () => {
    const u = await buyer();
    const s = await signIn(u);
    const out = await t.api('POST', '/api/auth/logout', { token: s.token });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toBe('cv_session=; Path=/api; Max-Age=0; HttpOnly; SameSite=Lax');
    // A browser that kept it anyway holds a dead session.
    expect((await withCookie('/api/ebooks/EBOOK-FINANCAS/download', s.cookie)).status).toBe(401);
    // Logging out without a session still tells the browser to drop it.
    const anon = await t.api('POST', '/api/auth/logout');
    expect([anon.status, anon.headers.get('set-cookie')]).toEqual([401, 'cv_session=; Path=/api; Max-Age=0; HttpOnly; SameSite=Lax']);
  });
});

test('in production the session cookie is Secure', async () => {
  const { sessionCookie, clearedSessionCookie } = await import('../../src/auth/session-cookie');
  const prod = { isProduction: true, sessionTtlDays: 7 };
  expect(sessionCookie(prod, 'tok', true)).toBe('cv_session=tok; Path=/api; Max-Age=604800; HttpOnly; SameSite=Lax; Secure');
  expect(clearedSessionCookie(prod)).toBe('cv_session=; Path=/api; Max-Age=0; HttpOnly; SameSite=Lax; Secure');
});
