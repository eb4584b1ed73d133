import Router from '@koa/router';
import type { AppState } from '../platform/http/context';
import { body, requireUser, adminRouter } from '../platform/http/context';
import type { AutopayService } from './service';

/**
 * Autopay (RULES A1-A5): the customer's captive numbers and saved card, the claims grid, the card
 * tokenization config and the sandbox tokenizer. Everything answers no-store (per-user data).
 */
export function autopayRoutes(s: { autopay: AutopayService }) {
  const r = new Router<AppState>({ prefix: '/api' });
  const a = s.autopay;
  r.use(async (ctx, next) => {
    ctx.set('Cache-Control', 'no-store');
    await next();
  });

  r.get('/me/autopay', async (ctx) => {
    ctx.body = await a.get(requireUser(ctx).id);
  });
  r.post('/me/autopay', async (ctx) => {
    ctx.body = await a.save(requireUser(ctx).id, body(ctx));
  });
  r.post('/me/autopay/cancel', async (ctx) => {
    ctx.body = await a.cancel(requireUser(ctx).id);
  });
  r.get('/autopay/claims', async (ctx) => {
    ctx.body = await a.claims(requireUser(ctx).id);
  });
  r.get('/autopay/card-config', async (ctx) => {
    ctx.body = a.cardConfig();
  });
  // Only while the sandbox provider is active (404 otherwise); logged-in users only.
  r.post('/sandbox/card-tokens', async (ctx) => {
    const user = requireUser(ctx);
    ctx.status = 201;
    ctx.body = await a.tokenize(user.id, body(ctx));
  });
  return r;
}

/** Routes of adminAutopayRoutes, for the route-table test. */
export const ADMIN_AUTOPAY_ROUTES = [{ method: 'GET', path: '/api/admin/autopay/runs' }] as const;

/** The admin console's autopay runs (a section of the draw view). */
export function adminAutopayRoutes(s: { autopay: AutopayService }) {
  const r = adminRouter();
  r.get('/autopay/runs', async (ctx) => {
    ctx.body = await s.autopay.listRuns(ctx.query);
  });
  return r;
}
