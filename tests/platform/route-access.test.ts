import http from 'node:http';
import Koa from 'koa';
import Router from '@koa/router';
import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { openOpsLink, opsCookieOf } from '../ops/support';
import { mountedRoutes, mountRoutes } from '../../src/platform/http/middleware';
import {
  buildRouter,
  nonCanonicalGuardedPath,
  routes,
  RouteDeclarationError,
  type AccessControl,
  type MountedRoute,
} from '../../src/platform/http/routes';
import { OPS_COOKIE } from '../../src/ops/service';
import { match } from 'path-to-regexp';

/**
 * Access control generated from what the app really mounted (RULES H1, H2): every route of
 * `mountedRoutes(app)` — nothing here names a route — is called
 * - in its canonical spelling by an anonymous caller, a customer, an admin and (for /ops) the
 *   dashboard's cookie session: 401 / 403 exactly where its declared access says, and its handlers
 *   reached (the route probe) only by callers the declaration allows;
 * - with HEAD where it is a GET;
 * - in eleven odd spellings of its path (each segment's letter case, all upper case, a trailing
 *   slash, doubled slashes, percent-encoded letters, `/./`, `/../`, `;x=1`, a backslash, an
 *   encoded slash): 404 for every caller, no handler reached.
 * Requests go out through node:http with the path exactly as written (fetch would normalise it).
 */
let t: TestContext;
/** Thousands of requests, one at a time: generous for a machine busy with other work (no timing is asserted). */
const WALK_TIMEOUT_MS = 600_000;
const reached = new Set<string>();
let seq = 0;

beforeAll(async () => {
  t = await createTestContext({
    serveWeb: true,
    env: { RATE_LIMIT_DISABLED: '1' },
    routeProbe: (_route, ctx) => {
      reached.add(ctx.state.requestId);
    },
  });
});
afterAll(() => t.close());

interface Answer {
  status: number;
  body: string;
  reached: boolean;
}

/** One request with the path byte for byte as given; whether any route's handlers ran for it. */
function call(method: string, rawPath: string, headers: Record<string, string> = {}): Promise<Answer> {
  const requestId = `route-access-${++seq}-${Date.now()}`;
  const u = new URL(t.url);
  const payload = method === 'GET' || method === 'HEAD' ? undefined : '{}';
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        method,
        path: rawPath,
        headers: {
          'x-request-id': requestId,
          ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), reached: reached.has(requestId) }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The route's path with a value for each parameter (one that names nothing that exists). */
const concrete = (r: MountedRoute) => r.path.replace(/:[A-Za-z_]+/g, '999999').replace(/\*[A-Za-z_]+/g, 'nada');

/**
 * The mounted route a path reaches as written (the routers are case-sensitive and strict), in
 * mounting order: another letter case of a literal segment can name another route's parameter
 * (`/api/draws/Open` is the draw whose id is 'Open'), which then answers by its own declaration.
 */
function routeFor(method: string, spelled: string): MountedRoute | undefined {
  return mountedRoutes(t.app).find(
    (m) => m.methods.includes(method) && match(m.path, { sensitive: true, trailing: false, decode: false })(spelled) !== false,
  );
}

/** Other spellings of a canonical path: none may reach the route it spells. */
function oddSpellings(r: MountedRoute): string[] {
  const p = concrete(r);
  const segs = p.split('/').slice(1);
  const pattern = r.path.split('/').slice(1);
  const out = new Set<string>();
  segs.forEach((s, i) => {
    // Each literal segment's letter case (a parameter's value is the caller's, not a spelling).
    if (!/[a-z]/.test(s) || /^[:*]/.test(pattern[i] ?? '')) return;
    const k = s.search(/[a-z]/);
    const other = [...segs];
    other[i] = s.slice(0, k) + s[k].toUpperCase() + s.slice(k + 1);
    out.add('/' + other.join('/'));
  });
  out.add(p.toUpperCase());
  out.add(p + '/');
  out.add('/' + segs[0] + '//' + segs.slice(1).join('/'));
  out.add('/' + p);
  const firstLetter = p.search(/[a-z]/);
  out.add(p.slice(0, firstLetter) + '%' + p.charCodeAt(firstLetter).toString(16) + p.slice(firstLetter + 1));
  const lastLetter = p.length - 1 - [...p].reverse().findIndex((c) => /[a-z]/.test(c));
  out.add(p.slice(0, lastLetter) + '%' + p.charCodeAt(lastLetter).toString(16).toUpperCase() + p.slice(lastLetter + 1));
  out.add('/' + segs[0] + '/./' + segs.slice(1).join('/'));
  out.add('/' + segs[0] + '/x/../' + segs.slice(1).join('/'));
  out.add(p + ';x=1');
  out.add('/' + segs[0] + '\\' + segs.slice(1).join('/'));
  out.add('/' + segs[0] + '%2F' + segs.slice(1).join('/'));
  out.delete(p);
  return [...out];
}

const expectedAnonymous = (r: MountedRoute) => (r.access === 'public' ? null : 401);
const expectedCustomer = (r: MountedRoute) => (r.access === 'admin' || r.access === 'ops' ? 403 : null);

test('the app mounts only declared routes, /api and /ops alike, and every access level is in use', () => {
  const mounted = mountedRoutes(t.app);
  expect(mounted.length).toBeGreaterThan(80);
  expect(new Set(mounted.map((r) => r.access))).toEqual(new Set(['public', 'customer', 'admin', 'ops']));
  for (const r of mounted) expect(r.path).toMatch(/^\/(api|ops)(\/|$)/);
  // Every /api/admin route is an admin's.
  expect(mounted.filter((r) => r.path.startsWith('/api/admin/') && r.access !== 'admin')).toEqual([]);
});

/** A signed-in user whose session is still alive (a route may have ended the last one: logout). */
async function liveSession(current: Awaited<ReturnType<typeof createUser>> | null, admin: boolean) {
  if (current && (await t.api('GET', '/api/me', { token: current.token })).status === 200) return current;
  return createUser(t, { admin });
}

test(
  'every mounted route, canonical spelling: anonymous 401 and customer 403 where declared, handlers reached only by allowed callers',
  async () => {
    let customer: Awaited<ReturnType<typeof createUser>> | null = null;
    let admin: Awaited<ReturnType<typeof createUser>> | null = null;
    const failures: string[] = [];
    for (const r of mountedRoutes(t.app)) {
      customer = await liveSession(customer, false);
      admin = await liveSession(admin, true);
      const path = concrete(r);
      for (const method of r.methods) {
        const label = `${method} ${r.path} (${r.access})`;
        const anon = await call(method, path);
        const wantAnon = expectedAnonymous(r);
        if (wantAnon !== null && (anon.status !== wantAnon || anon.reached))
          failures.push(`${label} anonymous: ${anon.status}${anon.reached ? ' REACHED' : ''}`);
        // A public route is reached by anyone (it may judge its own signed link, like /ops/login); a
        // public read may also come from the read cache's fast lane in front of Koa (no route runs).
        const publicOk = (a: Answer) => a.reached || (method === 'GET' && a.status === 200) || method === 'HEAD';
        if (wantAnon === null && !publicOk(anon)) failures.push(`${label} anonymous: public route not reached (${anon.status})`);

        const cust = await call(method, path, { authorization: `Bearer ${customer.token}` });
        const wantCust = expectedCustomer(r);
        if (wantCust !== null && (cust.status !== wantCust || cust.reached))
          failures.push(`${label} customer: ${cust.status}${cust.reached ? ' REACHED' : ''}`);
        if (wantCust === null && !(r.access === 'public' ? publicOk(cust) : cust.reached))
          failures.push(`${label} customer: allowed but not reached (${cust.status})`);

        const adm = await call(method, path, { authorization: `Bearer ${admin.token}` });
        if (r.access === 'ops') {
          // The dashboard takes its own cookie only, never a bearer token.
          if (adm.status !== 401 || adm.reached) failures.push(`${label} admin bearer: ${adm.status}${adm.reached ? ' REACHED' : ''}`);
          const { login } = await openOpsLink(t, admin.token);
          const cookie = `${OPS_COOKIE}=${opsCookieOf(login!.headers.get('set-cookie'))}`;
          const ops = await call(method, path, { cookie });
          if (!ops.reached) failures.push(`${label} ops session: not reached (${ops.status})`);
        } else if (!(r.access === 'public' ? publicOk(adm) : adm.reached))
          failures.push(`${label} admin: allowed but not reached (${adm.status})`);
      }
    }
    expect(failures).toEqual([]);
  },
  WALK_TIMEOUT_MS,
);

test(
  "every mounted route, in eleven odd spellings: 404 for every caller and no handler reached (or, where another letter case names another route, that route's own access)",
  async () => {
    const customer = await createUser(t);
    const admin = await createUser(t, { admin: true });
    const { login } = await openOpsLink(t, admin.token);
    const callers: Record<'anonymous' | 'customer' | 'admin', Record<string, string>> = {
      anonymous: {},
      customer: { authorization: `Bearer ${customer.token}` },
      admin: { authorization: `Bearer ${admin.token}`, cookie: `${OPS_COOKIE}=${opsCookieOf(login!.headers.get('set-cookie'))}` },
    };
    const failures: string[] = [];
    let tried = 0;
    for (const r of mountedRoutes(t.app)) {
      const spellings = oddSpellings(r);
      expect(spellings.length).toBeGreaterThanOrEqual(11);
      for (const spelled of spellings) {
        for (const who of ['anonymous', 'customer', 'admin'] as const) {
          const headers = callers[who];
          const method = r.methods[0];
          const a = await call(method, spelled, headers);
          tried++;
          // Structurally odd (slashes, dots, escapes, `;`, case of the root): refused before any router.
          const other = nonCanonicalGuardedPath(spelled) ? undefined : routeFor(method, spelled);
          const label = `${method} ${spelled} as ${who}: ${a.status}${a.reached ? ' REACHED' : ''} ${a.body.slice(0, 80)}`;
          if (other === r || (other && other.path === r.path)) failures.push(`${label} — the odd spelling matched the route itself`);
          else if (!other) {
            if (![404, 405].includes(a.status) || a.reached) failures.push(label);
          } else {
            const want = who === 'anonymous' ? expectedAnonymous(other) : who === 'customer' ? expectedCustomer(other) : null;
            if (want !== null && (a.status !== want || a.reached)) failures.push(`${label} (as ${other.path})`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
    expect(tried).toBeGreaterThan(2000);
  },
  WALK_TIMEOUT_MS,
);

test('the attacks of the review, replayed: admin data by another letter case is refused', async () => {
  const customer = await createUser(t);
  for (const p of [
    '/api/Admin/users',
    '/api/ADMIN/users',
    '/API/admin/users',
    '/Api/Admin/users',
    '/api/admin/Users',
    '/api/admin/dashboard/Summary',
  ]) {
    for (const headers of [{}, { authorization: `Bearer ${customer.token}` }] as Array<Record<string, string>>) {
      const a = await call('GET', p, headers);
      expect([p, a.status, a.reached]).toEqual([p, 404, false]);
      expect(JSON.parse(a.body)).toEqual({ error: 'route_not_found', message: 'Rota não encontrada.' });
    }
  }
  for (const p of ['/api/Admin/draws/1/result/preview', '/api/Admin/draws/1/result/fetch']) {
    const a = await call('POST', p);
    expect([p, a.status, a.reached]).toEqual([p, 404, false]);
  }
  // The canonical spelling: 401 anonymous, 403 for a customer.
  expect((await call('GET', '/api/admin/users')).status).toBe(401);
  expect((await call('GET', '/api/admin/users', { authorization: `Bearer ${customer.token}` })).status).toBe(403);
});

test('the queue dashboard is read-only by its route table, in any spelling of its API', async () => {
  const admin = await createUser(t, { admin: true });
  const { login } = await openOpsLink(t, admin.token);
  const cookie = `${OPS_COOKIE}=${opsCookieOf(login!.headers.get('set-cookie'))}`;
  expect((await call('GET', '/ops/queues/api/queues', { cookie })).status).toBe(200);
  for (const p of [
    '/ops/queues/api/queues/main/retry/failed',
    '/ops/queues/API/queues/main/retry/failed',
    '/ops/queues/Api/queues/main/clean/completed',
  ]) {
    for (const method of ['PUT', 'POST', 'DELETE', 'PATCH']) {
      const a = await call(method, p, { cookie });
      expect([method, p, a.status]).toEqual([method, p, 405]);
      expect(JSON.parse(a.body).error).toBe('read_only');
    }
  }
  for (const p of [
    '/OPS/queues/api/queues/main/retry/failed',
    '/ops//queues/api/queues/main/retry/failed',
    '/ops/./queues/api/queues/main/retry/failed',
    '/ops/queues/api/queues/main/retry/failed;x=1',
  ]) {
    const a = await call('PUT', p, { cookie });
    expect([p, a.status, a.reached]).toEqual([p, 404, false]);
  }
});

test('the canonical-path rule, case by case', () => {
  const canonical = [
    '/api/me',
    '/api/admin/users',
    '/api/infoproducts/e-book%20de%20receitas',
    '/api/ebooks/SKU-1/download',
    '/ops/queues',
    '/ops',
    '/',
    '/numeros',
    '/numeros/',
    '/assets/index-ABC.js',
  ];
  for (const p of canonical) expect([p, nonCanonicalGuardedPath(p)]).toEqual([p, false]);
  const odd = [
    '/API/me',
    '/Api/me',
    '/apI',
    '/api/me/',
    '//api/me',
    '/api//me',
    '/api/./me',
    '/./api/me',
    '/x/../api/me',
    '/api/x/../me',
    '/%61pi/me',
    '/api/m%65',
    '/api/me;x=1',
    '/api;x=1/me',
    '/api\\me',
    '/api%2Fme',
    '/api/%2e%2e/me',
    '/api/me%',
    '/OPS/queues',
    '/ops/queues/',
    '/%6Fps',
  ];
  for (const p of odd) expect([p, nonCanonicalGuardedPath(p)]).toEqual([p, true]);
});

test('a route without a declaration, a raw router or a private route before the session stop the app from starting', () => {
  const control: AccessControl = { customer: () => {}, admin: async () => {}, ops: async () => {} };
  const undeclared = routes();
  (undeclared as unknown as { get: (p: string, ...h: unknown[]) => void }).get('/x', async () => {});
  expect(() => buildRouter(undeclared, control)).toThrow(RouteDeclarationError);
  expect(() => buildRouter(undeclared, control)).toThrow('GET /api/x não declara quem pode chamá-la');

  const app = new Koa();
  const raw = new Router({ prefix: '/api' });
  raw.get('/y', (ctx) => {
    ctx.body = 'y';
  });
  expect(() => mountRoutes(app as never, [raw as never], control)).toThrow(RouteDeclarationError);

  const early = routes();
  early.get('/z', 'customer', (ctx) => {
    ctx.body = 'z';
  });
  expect(() => buildRouter(early, control, { onlyPublic: true })).toThrow("só pode ser 'public'");

  const ok = routes();
  ok.get('/w', 'admin', (ctx) => {
    ctx.body = 'w';
  });
  const built = buildRouter(ok, control);
  expect(built.mounted).toEqual([{ methods: ['GET', 'HEAD'], path: '/api/w', access: 'admin' }]);
});
