import Router from '@koa/router';
import type { AppState } from '../platform/http/context';
import { body, clientIp, requireUser } from '../platform/http/context';
import type { AuthService } from './service';
import { RESET_ACCEPTED_MESSAGE } from './service';

export function authRoutes(auth: AuthService) {
  const r = new Router<AppState>({ prefix: '/api' });

  r.post('/auth/register', async (ctx) => {
    const user = await auth.register(body(ctx), { ip: clientIp(ctx) });
    ctx.status = 201;
    ctx.body = { user };
  });

  r.post('/auth/login', async (ctx) => {
    ctx.body = await auth.login(body(ctx), { ip: clientIp(ctx), userAgent: ctx.get('user-agent') });
  });

  r.post('/auth/logout', async (ctx) => {
    const user = requireUser(ctx);
    await auth.logout(user.tokenId);
    ctx.status = 204;
  });

  r.get('/me', async (ctx) => {
    const user = requireUser(ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { user: await auth.me(user.id) };
  });

  r.post('/auth/reset-password', async (ctx) => {
    await auth.requestPasswordReset(body(ctx), { ip: clientIp(ctx) });
    ctx.status = 202;
    ctx.body = { ok: true, message: RESET_ACCEPTED_MESSAGE };
  });

  r.post('/auth/reset-password/confirm', async (ctx) => {
    await auth.confirmPasswordReset(body(ctx), { ip: clientIp(ctx) });
    ctx.body = { ok: true };
  });

  return r;
}
