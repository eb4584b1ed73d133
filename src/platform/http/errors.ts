import type { Context, Next } from 'koa';
import { ZodError } from 'zod';
import { isDomainError, type ErrorKind } from '../errors';
import { isDatabaseUnavailable } from '../db';

const STATUS: Record<ErrorKind, number> = {
  validation: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  unavailable: 503,
};

/** Seconds a client is asked to wait while the database is unreachable. */
const DATABASE_RETRY_AFTER_S = 5;

/** Human pt-BR summary of zod issues: "campo: mensagem; …". */
export function zodDetails(e: ZodError) {
  return e.issues.map((i) => ({ path: i.path.join('.'), message: i.message, code: i.code }));
}

/** `/api` and everything under it, in any letter case (`/API/x` is an API path too). */
export function isApiPath(p: string): boolean {
  return /^\/api(\/|$)/i.test(p);
}

/** Bodiless router answers under /api (no route, wrong method, unknown method) as JSON. */
const ROUTER_ANSWERS: Record<number, { error: string; message: string }> = {
  404: { error: 'route_not_found', message: 'Rota não encontrada.' },
  405: { error: 'method_not_allowed', message: 'Método não permitido para esta rota.' },
  501: { error: 'not_implemented', message: 'Método não suportado.' },
};

/**
 * Maps every error to `{error, message, details?}` with the right status. The database being
 * unreachable is a 503 `database_unavailable` with Retry-After (see isDatabaseUnavailable).
 * Unknown errors are logged with the request id and answer a bare 500.
 */
export async function errorMiddleware(ctx: Context, next: Next) {
  try {
    await next();
    const answer = ROUTER_ANSWERS[ctx.status];
    if (answer && isApiPath(ctx.path) && (ctx.body == null || ctx.body === '')) {
      const status = ctx.status;
      ctx.body = answer;
      ctx.status = status;
    } else if (ctx.method === 'OPTIONS' && ctx.status === 200 && ctx.body === '' && isApiPath(ctx.path)) {
      // The routers' answer to a plain OPTIONS (not a CORS preflight): the Allow header, as JSON too.
      ctx.body = {
        allow: ctx.response
          .get('Allow')
          .split(/\s*,\s*/)
          .filter(Boolean),
      };
    }
  } catch (err) {
    if (isDomainError(err)) {
      ctx.status = STATUS[err.kind];
      ctx.body = { error: err.code, message: err.message, ...err.extra };
      if (err.kind === 'rate_limited' && typeof err.extra.retry_after === 'number') ctx.set('Retry-After', String(err.extra.retry_after));
      return;
    }
    if (err instanceof ZodError) {
      const details = zodDetails(err);
      ctx.status = 400;
      ctx.body = { error: 'validation_error', message: details[0]?.message ?? 'Dados inválidos.', details };
      return;
    }
    const e = err as { status?: number; statusCode?: number; expose?: boolean; type?: string; message?: string };
    const status = e.status ?? e.statusCode;
    if (status && status >= 400 && status < 500) {
      // Koa / body parser client errors: bad JSON, too large, unsupported type…
      ctx.status = status;
      const code = status === 413 ? 'payload_too_large' : status === 415 ? 'unsupported_media_type' : 'bad_request';
      const message =
        status === 413
          ? 'Corpo da requisição grande demais.'
          : status === 415
            ? 'Envie o corpo como JSON.'
            : 'Requisição inválida (JSON malformado?).';
      ctx.body = { error: code, message };
      return;
    }
    if (isDatabaseUnavailable(err)) {
      // PostgreSQL unreachable (stopped, restarting, network): a short outage, not a bug. The
      // pool reconnects by itself once it is back, so the client is told to try again soon.
      ctx.state.log?.warn({ err: (err as Error).message, code: (err as { code?: string }).code }, 'database unavailable');
      ctx.status = 503;
      ctx.set('Retry-After', String(DATABASE_RETRY_AFTER_S));
      ctx.body = { error: 'database_unavailable', message: 'O serviço está temporariamente indisponível. Tente novamente em instantes.' };
      return;
    }
    ctx.state.log?.error({ err }, 'unhandled error');
    ctx.status = 500;
    ctx.body = { error: 'internal_error', message: 'Erro interno. Tente novamente em instantes.', request_id: ctx.state.requestId };
  }
}
