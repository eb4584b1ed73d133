import { createTestContext, createUser, type TestContext } from '../helpers/context';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { OPS_COOKIE } from '../../src/ops/service';
import { openOpsLink, opsCookieOf, rawRequest } from './support';
import { opsAccess, opsRoutes } from '../../src/ops/dashboard';
import { mountRoutes } from '../../src/platform/http/middleware';
import { accessControl } from '../../src/platform/http/context';
import { errorMiddleware } from '../../src/platform/http/errors';
import { createApp } from '../../src/http';

/**
 * The queue dashboard under /ops (the operations view; RULES H3): only through the signed link of
 * POST /api/admin/ops/link, which sets an httpOnly, SameSite=Strict cookie scoped to /ops. Without
 * it every path under /ops (page, static files, API) answers 401 JSON, a customer 403, never the
 * dashboard; a demoted admin is refused at once.
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1' } });
});
afterAll(() => t.close());

const raw = (path: string, headers: Record<string, string> = {}, method = 'GET') => rawRequest(t, path, headers, method);

async function openDashboard(token: string) {
  const { link, login } = await openOpsLink(t, token);
  expect(link.status).toBe(200);
  return { link, login: login! };
}

const cookieOf = opsCookieOf;

const PATHS = [
  '/ops',
  '/ops/queues',
  '/ops/queues/queue/main',
  '/ops/queues/api/queues',
  '/ops/queues/static/js/main.js',
  '/ops/anything',
  '/ops/queues/api/queues/main/retry/failed',
];

test('anonymous: 401 JSON on every path under /ops (page, static files, API), never the dashboard or the SPA', async () => {
  for (const p of PATHS) {
    const r = await raw(p);
    expect([p, r.status, r.body.error]).toEqual([p, 401, 'unauthenticated']);
    expect(r.headers.get('content-type')).toMatch(/application\/json/);
    expect(typeof r.body.message).toBe('string');
    expect(r.text).not.toMatch(/<html/i);
  }
  const put = await raw('/ops/queues/api/queues/main/retry/failed', {}, 'PUT');
  expect(put.status).toBe(401);
  // A second spelling of a path (here a trailing slash) is no path at all (RULES H2).
  const slash = await raw('/ops/queues/');
  expect([slash.status, slash.body]).toEqual([404, { error: 'route_not_found', message: 'Rota não encontrada.' }]);
  // A made-up cookie is no way in either.
  const forged = await raw('/ops/queues', { cookie: `${OPS_COOKIE}=v1.eyJwIjoic2Vzc2lvbiIsInUiOjEsImUiOjk5OTk5OTk5OTl9.AAAA` });
  expect(forged.status).toBe(401);
});

test('an admin: the link opens the dashboard (HTML, static files, its API), cookie httpOnly, SameSite=Strict, Path=/ops', async () => {
  const admin = await createUser(t, { admin: true });
  const { link, login } = await openDashboard(admin.token);
  expect(link.headers.get('cache-control')).toBe('no-store');
  expect(link.body.url).toMatch(/^http:\/\/cotaverde\.test\/ops\/login\?token=v1\./);
  const ttl = Date.parse(link.body.expires_at) - Date.now();
  expect(ttl).toBeGreaterThan(30_000);
  expect(ttl).toBeLessThanOrEqual(61_000);

  expect(login.status).toBe(303);
  expect(login.headers.get('location')).toBe('/ops/queues');
  const setCookie = login.headers.get('set-cookie')!;
  expect(setCookie).toMatch(/HttpOnly/);
  expect(setCookie).toMatch(/SameSite=Strict/);
  expect(setCookie).toMatch(/Path=\/ops(;|$)/);
  expect(setCookie).toMatch(/Max-Age=1800/);
  expect(setCookie).not.toMatch(/Secure/); // only in production
  const cookie = { cookie: `${OPS_COOKIE}=${cookieOf(setCookie)}` };

  const page = await raw('/ops/queues', cookie);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/text\/html/);
  expect(page.text).toContain('Cota Verde — filas');
  expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
  expect(page.headers.get('content-security-policy')).toContain('https://fonts.googleapis.com');
  expect(page.headers.get('cache-control')).toBe('no-store');

  // Its static files, only with the cookie.
  const script = /src="(static\/js\/main\.[^"]+\.js)"/.exec(page.text)![1];
  const js = await raw(`/ops/queues/${script}`, cookie);
  expect(js.status).toBe(200);
  expect(js.headers.get('content-type')).toMatch(/javascript/);
  expect((await raw(`/ops/queues/${script}`)).status).toBe(401);

  // Its API: the project's BullMQ queue.
  await t.services.queue.enqueue('mail.send', { outboxId: 999_999 }, { delay: 60_000 });
  const api = await raw('/ops/queues/api/queues', cookie);
  expect(api.status).toBe(200);
  expect(api.headers.get('content-type')).toMatch(/application\/json/);
  expect(api.body.queues.map((q: { name: string }) => q.name)).toEqual(['main']);
  expect(api.body.queues[0].counts.delayed).toBeGreaterThanOrEqual(1);
  expect((await raw('/ops/queues/api/queues')).status).toBe(401);

  // /ops itself sends to the dashboard; an unknown /ops path is a JSON 404, not the SPA.
  const root = await raw('/ops', cookie);
  expect([root.status, root.headers.get('location')]).toEqual([302, '/ops/queues']);
  const nope = await raw('/ops/nada', cookie);
  expect([nope.status, nope.body.error]).toEqual([404, 'route_not_found']);

  // The link works once.
  const again = await raw(new URL(link.body.url).pathname + new URL(link.body.url).search);
  expect([again.status, again.body.error]).toEqual([401, 'unauthenticated']);
  expect(again.body.message).toBe('Este link já foi usado. Gere outro no console de administração.');

  // The admin's bearer token alone does not open it (only the cookie does).
  expect((await raw('/ops/queues', { authorization: `Bearer ${admin.token}` })).status).toBe(401);
});

test('a customer: 403 with their bearer session and with a link minted for them; the link API itself is 401/403', async () => {
  const customer = await createUser(t);
  const bearer = await raw('/ops/queues', { authorization: `Bearer ${customer.token}` });
  expect(bearer.status).toBe(403);
  expect(bearer.body).toEqual({ error: 'forbidden', message: 'Acesso restrito a administradores.' });
  expect(bearer.text).not.toContain('Cota Verde — filas');
  const api = await raw('/ops/queues/api/queues', { authorization: `Bearer ${customer.token}` });
  expect(api.status).toBe(403);

  expect((await t.api('POST', '/api/admin/ops/link', { token: customer.token, body: {} })).status).toBe(403);
  expect((await t.api('POST', '/api/admin/ops/link', { body: {} })).status).toBe(401);

  // Even a correctly signed link for a customer (the service, not the API) opens nothing.
  const url = new URL(t.services.ops.issueLink(customer.user.id).url);
  const login = await raw(url.pathname + url.search);
  expect(login.status).toBe(403);
  expect(login.body.error).toBe('forbidden');
  expect(login.headers.get('set-cookie') ?? '').not.toMatch(new RegExp(`${OPS_COOKIE}=v1`));
});

test('expired or tampered link or cookie: 401', async () => {
  const admin = await createUser(t, { admin: true });
  // A link issued 2 minutes ago (valid 60 s).
  const old = new URL(t.services.ops.issueLink(admin.user.id, Date.now() - 120_000).url);
  const expired = await raw(old.pathname + old.search);
  expect([expired.status, expired.body.error, expired.body.message]).toEqual([
    401,
    'unauthenticated',
    'Link expirado. Gere outro no console de administração.',
  ]);

  // A tampered link: the user id changed in the payload, or the signature changed.
  const fresh = new URL(t.services.ops.issueLink(admin.user.id).url);
  const token = fresh.searchParams.get('token')!;
  const [v, payload, sig] = token.split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
  const otherPayload = Buffer.from(JSON.stringify({ ...claims, u: claims.u + 1 })).toString('base64url');
  for (const bad of [`${v}.${otherPayload}.${sig}`, `${v}.${payload}.${sig.slice(0, -2)}${sig.endsWith('AA') ? 'BB' : 'AA'}`, 'lixo', '']) {
    const r = await raw(`/ops/login?token=${encodeURIComponent(bad)}`);
    expect([bad, r.status, r.body.error]).toEqual([bad, 401, 'unauthenticated']);
  }
  // The untouched link still works after those attempts.
  const ok = await raw(fresh.pathname + fresh.search);
  expect(ok.status).toBe(303);
  const cookie = cookieOf(ok.headers.get('set-cookie'));
  expect((await raw('/ops/queues/api/queues', { cookie: `${OPS_COOKIE}=${cookie}` })).status).toBe(200);

  // A tampered cookie.
  const [cv, cp, cs] = cookie.split('.');
  const cClaims = JSON.parse(Buffer.from(cp, 'base64url').toString());
  const longer = Buffer.from(JSON.stringify({ ...cClaims, e: cClaims.e + 86_400 })).toString('base64url');
  for (const bad of [`${cv}.${longer}.${cs}`, `${cv}.${cp}.${cs.slice(1)}`, `${cv}.${cp}`]) {
    const r = await raw('/ops/queues', { cookie: `${OPS_COOKIE}=${bad}` });
    expect([bad, r.status, r.body.error]).toEqual([bad, 401, 'unauthenticated']);
  }
  // A login link is not a session cookie (purpose is signed).
  expect((await raw('/ops/queues', { cookie: `${OPS_COOKIE}=${token}` })).status).toBe(401);

  // An expired cookie: a session opened 31 minutes ago (valid 30).
  const past = Date.now() - 31 * 60_000;
  const s = await t.services.ops.redeemLogin(new URL(t.services.ops.issueLink(admin.user.id, past).url).searchParams.get('token')!, past);
  const late = await raw('/ops/queues', { cookie: `${OPS_COOKIE}=${s.cookie}` });
  expect([late.status, late.body.error, late.body.message]).toEqual([
    401,
    'unauthenticated',
    'Sessão do painel de filas expirada. Abra-o de novo pelo console de administração.',
  ]);
});

test('an admin demoted after opening the dashboard is refused at once (403); promoted again, let in', async () => {
  const admin = await createUser(t, { admin: true });
  const { login } = await openDashboard(admin.token);
  const cookie = { cookie: `${OPS_COOKIE}=${cookieOf(login.headers.get('set-cookie'))}` };
  expect((await raw('/ops/queues/api/queues', cookie)).status).toBe(200);
  await t.services.db('users').where({ id: admin.user.id }).update({ is_admin: false, role: 'customer' });
  const page = await raw('/ops/queues', cookie);
  expect(page.status).toBe(403);
  expect(page.body).toEqual({ error: 'forbidden', message: 'Acesso restrito a administradores.' });
  expect((await raw('/ops/queues/api/queues', cookie)).status).toBe(403);
  await t.services.db('users').where({ id: admin.user.id }).update({ is_admin: true, role: 'admin' });
  expect((await raw('/ops/queues/api/queues', cookie)).status).toBe(200);
});

test('the link is GET only (a HEAD or POST does not use it up), and in production the cookie is Secure', async () => {
  const admin = await createUser(t, { admin: true });
  const u = new URL(t.services.ops.issueLink(admin.user.id).url);
  for (const method of ['HEAD', 'POST']) {
    const r = await raw(u.pathname + u.search, {}, method);
    expect([method, r.status]).toEqual([method, 405]);
  }
  // The same middleware with a production configuration.
  const app = new Koa();
  app.use(errorMiddleware);
  const access = accessControl({
    authenticateFresh: (token) => t.services.auth.authenticate(token, { fresh: true }),
    ops: opsAccess({ ops: t.services.ops, auth: t.services.auth }),
  });
  mountRoutes(app as never, [opsRoutes({ ops: t.services.ops, queue: t.services.queue, config: { isProduction: true } })], access);
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${u.pathname}${u.search}`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('set-cookie')).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

test('the SPA fallback and the /api 404 do not swallow /ops', async () => {
  const r = await t.api('GET', '/api/ops/queues');
  expect([r.status, r.body.error]).toEqual([404, 'route_not_found']);
  // The app serving an SPA (its history fallback answers index.html for unknown page paths).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cv-spa-'));
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>SPA</title>');
  const server = http.createServer(createApp(t.services, { serveWeb: true, webDir: dir }).callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const page = await fetch(`${base}/conta`);
    expect(await page.text()).toContain('<title>SPA</title>');
    for (const p of ['/ops', '/ops/queues', '/ops/queues/queue/main', '/ops/nada']) {
      const res = await fetch(base + p, { redirect: 'manual' });
      const text = await res.text();
      expect([p, res.status]).toEqual([p, 401]);
      expect(text).not.toContain('SPA');
      expect(JSON.parse(text).error).toBe('unauthenticated');
    }
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
