import type Koa from 'koa';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { KoaAdapter } from '@bull-board/koa';
import type { AppState } from '../platform/http/context';
import type { Config } from '../platform/config';
import type { JobQueue } from '../platform/queue';
import type { AuthService } from '../auth/service';
import { errors, isDomainError } from '../platform/errors';
import { OPS_COOKIE, type OpsService } from './service';
import { routes, type RouteHandler, type Routes } from '../platform/http/routes';
import { readCookie, setCookieHeader } from '../platform/http/cookies';

/**
 * Everything under /ops: the BullMQ dashboard (@bull-board) at /ops/queues, for admins
 * only, outside the SPA's /admin/* routes and outside /api.
 *
 * - GET /ops/login?token=… redeems the one-time link from POST /api/admin/ops/link: it sets the
 *   httpOnly, SameSite=Strict cookie scoped to Path=/ops (Secure in production) and redirects to
 *   /ops/queues.
 * - Every other path under /ops (the page, its static files, its API) needs that cookie, and its
 *   user is read from the database on every request: no, expired or tampered cookie → 401 JSON;
 *   a user who is not (or no longer) an admin → 403 JSON, and so does a customer's bearer token.
 *   The dashboard is never served otherwise, and nothing under /ops falls through to the SPA.
 * - Its own CSP (the dashboard loads its fonts' stylesheet from Google Fonts) and no caching.
 */
export const OPS_BASE = '/ops/queues';

const OPS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline' https://fonts.googleapis.com",
  "font-src 'self' https://fonts.gstatic.com data:",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Under /ops (the canonical spelling: the canonical-path rule answers 404 for any other). */
export const isOpsPath = (p: string) => /^\/ops(\/|$)/.test(p);

const DENIED = {
  missing: 'Abra o painel de filas pelo console de administração (botão "Filas (operações)").',
  invalid: 'Sessão do painel de filas inválida. Abra-o de novo pelo console de administração.',
  expired: 'Sessão do painel de filas expirada. Abra-o de novo pelo console de administração.',
  unknown_user: 'Sessão do painel de filas inválida. Abra-o de novo pelo console de administração.',
  ended: 'Sessão do painel de filas encerrada. Abra-o de novo pelo console de administração.',
} as const;

function cookieHeader(value: string, maxAgeS: number, secure: boolean) {
  return setCookieHeader(OPS_COOKIE, value, { path: '/ops', maxAgeS, sameSite: 'Strict', secure });
}

/** The answers the error middleware does not give outside /api (a wrong method, an unknown /ops path). */
function deny(ctx: Koa.Context, status: 404 | 405, error: string, message: string) {
  ctx.status = status;
  ctx.body = { error, message };
}

/**
 * The 'ops' access check (platform/http/routes.ts): the dashboard's cookie session, its user
 * read from the database; no, expired, ended or tampered cookie → 401; not (or no longer) an
 * admin → 403, and so does a customer's bearer token (a bearer token is no way in).
 */
export function opsAccess(deps: { ops: OpsService; auth: Pick<AuthService, 'authenticate'> }) {
  return async (ctx: Koa.ParameterizedContext<AppState>) => {
    const check = await deps.ops.checkSession(readCookie(ctx.get('cookie'), OPS_COOKIE));
    if (!check.ok) {
      if (check.reason === 'not_admin') throw check.refusal;
      const bearer = /^Bearer\s+(.+)$/i.exec(ctx.get('authorization'));
      if (bearer) {
        const u = await deps.auth.authenticate(bearer[1].trim(), { fresh: true });
        if (u && !u.isAdmin) throw errors.forbidden('Acesso restrito a administradores.');
      }
      throw errors.unauthenticated(DENIED[check.reason]);
    }
    ctx.state.user = {
      id: check.user.id,
      email: check.user.email,
      name: check.user.name,
      isAdmin: true,
      mfaEnabled: check.user.mfaEnabled,
      tokenId: 0,
    };
  };
}

/**
 * Headers of every answer under /ops (its own CSP, no caching, no indexing), and JSON for the
 * router's bodiless 404/405 there: nothing under /ops falls through to the SPA. Decides no access.
 */
export const opsAnswers: Koa.Middleware<AppState> = async (ctx, next) => {
  if (!isOpsPath(ctx.path)) return next();
  ctx.set('Content-Security-Policy', OPS_CSP);
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Robots-Tag', 'noindex');
  ctx.set('Referrer-Policy', 'no-referrer');
  await next();
  if (ctx.body != null && ctx.body !== '') return;
  if (ctx.status === 404) deny(ctx, 404, 'route_not_found', 'Rota não encontrada.');
  else if (ctx.status === 405) deny(ctx, 405, 'method_not_allowed', 'Método não permitido para esta rota.');
};

/** The routes under /ops, each declaring its access like every other route. */
export function opsRoutes(deps: { ops: OpsService; queue: JobQueue; config: Pick<Config, 'isProduction'> }): Routes {
  let board: Koa.Middleware | null = null;
  // Built on the first admin request: most processes (and tests) never open the dashboard.
  const dashboard = () => {
    if (!board) {
      const adapter = new KoaAdapter();
      adapter.setBasePath(OPS_BASE);
      createBullBoard({
        // Read-only: jobs are looked at here, never removed, retried or promoted (the rebuild
        // sweeps and `cotaverde queues retry` own that); bull-board answers 405 to those calls.
        queues: [new BullMQAdapter(deps.queue.raw, { readOnlyMode: true })],
        serverAdapter: adapter,
        options: { uiConfig: { boardTitle: 'Cota Verde — filas' } },
      });
      board = adapter.registerPlugin() as unknown as Koa.Middleware;
    }
    return board;
  };
  const r = routes('');

  r.get('/ops/login', 'public', async (ctx) => {
    // A HEAD (a link preview, a prefetch) must not use up the one-time link.
    if (ctx.method !== 'GET') {
      ctx.set('Allow', 'GET');
      return deny(ctx, 405, 'method_not_allowed', 'Método não permitido para esta rota.');
    }
    const token = typeof ctx.query.token === 'string' ? ctx.query.token : undefined;
    try {
      const s = await deps.ops.redeemLogin(token);
      ctx.set('Set-Cookie', cookieHeader(s.cookie, s.maxAgeS, deps.config.isProduction));
      ctx.redirect(OPS_BASE);
      ctx.status = 303; // See Other: the address bar no longer holds the token
    } catch (e) {
      if (!isDomainError(e)) throw e;
      ctx.set('Set-Cookie', cookieHeader('', 0, deps.config.isProduction));
      throw e;
    }
  });

  r.get('/ops', 'ops', (ctx) => {
    ctx.redirect(OPS_BASE);
  });

  // Ended on the server too: the cookie (or a copy of it) stops working now, not in 30 min.
  const logout: RouteHandler = async (ctx) => {
    await deps.ops.endSession(readCookie(ctx.get('cookie'), OPS_COOKIE));
    ctx.set('Set-Cookie', cookieHeader('', 0, deps.config.isProduction));
    ctx.status = 204;
  };
  r.get('/ops/logout', 'ops', logout);
  r.post('/ops/logout', 'ops', logout);

  const serve: RouteHandler = async (ctx) => {
    await dashboard()(ctx, async () => {});
  };
  r.get(OPS_BASE, 'ops', serve);
  r.get(`${OPS_BASE}/*rest`, 'ops', serve);
  // Read-only dashboard: no call that changes a job, a queue or a schedule gets through, whatever
  // the bull-board version does with readOnlyMode: only GET and HEAD are routes to it.
  const readOnly: RouteHandler = (ctx) => {
    ctx.set('Allow', 'GET, HEAD');
    deny(ctx, 405, 'read_only', 'O painel de filas é somente leitura. Para reenfileirar jobs, use: cotaverde queues retry <tipo>.');
  };
  for (const path of [OPS_BASE, `${OPS_BASE}/*rest`]) {
    r.post(path, 'ops', readOnly);
    r.put(path, 'ops', readOnly);
    r.patch(path, 'ops', readOnly);
    r.delete(path, 'ops', readOnly);
  }
  // Any other path under /ops asks for the session first, then is not found.
  r.get('/ops/*rest', 'ops', (ctx) => deny(ctx, 404, 'route_not_found', 'Rota não encontrada.'));
  return r;
}
