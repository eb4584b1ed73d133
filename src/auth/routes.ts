import Router from '@koa/router';
import type { AppState } from '../platform/http/context';
import { body, clientIp, requireUser } from '../platform/http/context';
import type { Config } from '../platform/config';
import type { AuthService } from './service';
import { RESET_ACCEPTED_MESSAGE } from './service';
import { clearedSessionCookie, sessionCookie } from './session-cookie';
import { sendUserRead, type UserReadCache } from '../platform/user-read-cache';

export function authRoutes(auth: AuthService, config: Pick<Config, 'isProduction' | 'sessionTtlDays'>, userReads: UserReadCache) {
  const r = new Router<AppState>({ prefix: '/api' });

  // The account spec's registration tries POST /register first (account spec §7), then /auth/register.
  for (const path of ['/auth/register', '/register']) {
    r.post(path, async (ctx) => {
      const user = await auth.register(body(ctx), { ip: clientIp(ctx) });
      ctx.status = 201;
      ctx.body = { user };
    });
  }

  r.post('/auth/login', async (ctx) => {
    const result = await auth.login(body(ctx), { ip: clientIp(ctx), userAgent: ctx.get('user-agent') });
    ctx.set('Cache-Control', 'no-store');
    // Two factors on: no session and no cookie yet, only the mfa_token for /auth/login/mfa.
    if ('mfa_required' in result) {
      ctx.body = { mfa_required: true, mfa_token: result.mfa_token };
      return;
    }
    // The same token as an HttpOnly cookie, for the e-book download opened as a plain link.
    ctx.append('Set-Cookie', sessionCookie(config, result.token, result.remember));
    ctx.body = { token: result.token, user: result.user };
  });

  // The second step of a sign-in with two factors: {mfa_token, code} → the same answer (and
  // cookie) as a sign-in without them.
  r.post('/auth/login/mfa', async (ctx) => {
    const session = await auth.loginMfa(body(ctx), { ip: clientIp(ctx), userAgent: ctx.get('user-agent') });
    ctx.set('Cache-Control', 'no-store');
    ctx.append('Set-Cookie', sessionCookie(config, session.token, session.remember));
    ctx.body = { token: session.token, user: session.user };
  });

  // Two-factor sign-in of the signed-in account (customers and admins alike; an admin whom
  // ADMIN_MFA_REQUIRED keeps out of the console still reaches these).
  r.post('/auth/mfa/setup', async (ctx) => {
    const user = requireUser(ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await auth.mfaSetup(user);
  });

  r.post('/auth/mfa/enable', async (ctx) => {
    const user = requireUser(ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await auth.mfaEnable(user, body(ctx));
  });

  r.post('/auth/mfa/disable', async (ctx) => {
    const user = requireUser(ctx);
    await auth.mfaDisable(user, body(ctx));
    ctx.body = { ok: true };
  });

  r.post('/auth/logout', async (ctx) => {
    // Cleared whatever happens next: a browser logging out keeps no download cookie.
    ctx.append('Set-Cookie', clearedSessionCookie(config));
    const user = requireUser(ctx);
    await auth.logout(user.tokenId);
    ctx.status = 204;
  });

  r.get('/me', async (ctx) => {
    const user = requireUser(ctx);
    await sendUserRead(ctx, userReads, user.id, async () => ({ user: await auth.me(user.id) }));
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

  // The ADMIN_EMAILS proof (RULES U3). The mailed link opens the web page /confirmar-email-admin,
  // which asks this GET whether the link is live ({valid, email}; 400 when not): a GET changes
  // nothing, so a mail scanner prefetching the link confirms nothing. The page's button POSTs the
  // token from a session of the link's own account (401 anonymous, 403 wrong_account otherwise).
  r.get('/auth/confirm-admin-email', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await auth.checkAdminEmailToken(ctx.query.token);
  });

  r.post('/auth/confirm-admin-email', async (ctx) => {
    const user = requireUser(ctx);
    const done = await auth.confirmAdminEmail(user, body(ctx));
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { ok: true, ...done };
  });

  return r;
}
