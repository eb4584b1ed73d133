import { body, clientIp, requireUser } from '../platform/http/context';
import type { Config } from '../platform/config';
import type { AuthService } from './service';
import { RESET_ACCEPTED_MESSAGE } from './service';
import { clearedSessionCookie, sessionCookie } from './session-cookie';
import { sendUserRead, type UserReadCache } from '../platform/user-read-cache';
import { routes } from '../platform/http/routes';

export function authRoutes(auth: AuthService, config: Pick<Config, 'isProduction' | 'sessionTtlDays'>, userReads: UserReadCache) {
  const r = routes();

  // The account spec's registration tries POST /register first (account spec §7), then /auth/register.
  for (const path of ['/auth/register', '/register']) {
    r.post(path, 'public', async (ctx) => {
      const user = await auth.register(body(ctx), { ip: clientIp(ctx) });
      ctx.status = 201;
      ctx.body = { user };
    });
  }

  r.post('/auth/login', 'public', async (ctx) => {
    const input = body(ctx);
    const session = await auth.login(input, { ip: clientIp(ctx), userAgent: ctx.get('user-agent') });
    // The same token as an HttpOnly cookie, for the e-book download opened as a plain link.
    ctx.append('Set-Cookie', sessionCookie(config, session.token, (input as { remember?: unknown }).remember !== false));
    ctx.body = session;
  });

  // Public so that the download cookie is cleared even without a session; a session is still
  // required to end one (requireUser below).
  r.post('/auth/logout', 'public', async (ctx) => {
    // Cleared whatever happens next: a browser logging out keeps no download cookie.
    ctx.append('Set-Cookie', clearedSessionCookie(config));
    const user = requireUser(ctx);
    await auth.logout(user.tokenId);
    ctx.status = 204;
  });

  r.get('/me', 'customer', async (ctx) => {
    const user = requireUser(ctx);
    await sendUserRead(ctx, userReads, user.id, async () => ({ user: await auth.me(user.id) }));
  });

  r.post('/auth/reset-password', 'public', async (ctx) => {
    await auth.requestPasswordReset(body(ctx), { ip: clientIp(ctx) });
    ctx.status = 202;
    ctx.body = { ok: true, message: RESET_ACCEPTED_MESSAGE };
  });

  r.post('/auth/reset-password/confirm', 'public', async (ctx) => {
    await auth.confirmPasswordReset(body(ctx), { ip: clientIp(ctx) });
    ctx.body = { ok: true };
  });

  // The link mailed to an ADMIN_EMAILS address (DESIGN §9): opened in a browser it lands on the
  // sign-in page; asked for JSON it answers {ok, user_id, email}. A bad or used link: 400 JSON.
  r.get('/auth/confirm-admin-email', 'public', async (ctx) => {
    const done = await auth.confirmAdminEmail(ctx.query.token);
    ctx.set('Cache-Control', 'no-store');
    if (ctx.accepts('json', 'html') === 'html') {
      ctx.status = 303;
      ctx.redirect('/login?email_admin_confirmado=1');
      return;
    }
    ctx.body = { ok: true, ...done };
  });

  return r;
}
