import { Id } from '../platform/validation';
import { body, requireAdmin, requireUser } from '../platform/http/context';
import type { AccountService } from './service';
import type { MyBoardService } from '../draws/my-board';
import type { EbooksService } from '../catalogue/ebooks';
import type { AuthService } from '../auth/service';
import { cookieSessionUser } from '../auth/session-cookie';
import { routes } from '../platform/http/routes';

const DrawId = Id('Sorteio inválido.');

/** Customer area: draw detail board, e-book delivery, data export, admin draw settings. */
export function accountRoutes(s: {
  account: AccountService;
  myBoard: MyBoardService;
  ebooks: EbooksService;
  auth: Pick<AuthService, 'authenticate'>;
}) {
  const r = routes();

  r.get('/me/draws/:id/board', 'customer', async (ctx) => {
    const user = requireUser(ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await s.myBoard.board(user.id, DrawId.parse(ctx.params.id));
  });

  r.get('/ebooks/by-draw/:drawId', 'customer', async (ctx) => {
    const user = requireUser(ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await s.ebooks.linkForDraw(user.id, user.isAdmin, ctx.params.drawId);
  });

  // Bearer header, a signed link (?u=&exp=&sig=) from /ebooks/by-draw, or the session cookie: the
  // one route that reads it (a plain link opened in a new tab sends no bearer header).
  r.get('/ebooks/:sku/download', 'public', async (ctx) => {
    const file = await s.ebooks.download({
      sku: ctx.params.sku,
      user: ctx.state.user,
      cookieUser: () => cookieSessionUser(ctx, (token) => s.auth.authenticate(token)),
      query: ctx.query as Record<string, unknown>,
    });
    ctx.set('Cache-Control', 'private, no-store');
    ctx.set('Content-Disposition', `attachment; filename="${file.filename}"`);
    ctx.type = 'application/pdf';
    ctx.length = file.size;
    ctx.body = file.stream;
  });

  r.get('/me/export', 'customer', async (ctx) => {
    const user = requireUser(ctx);
    const data = await s.account.exportData(user.id);
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Content-Disposition', 'attachment; filename="cotaverde-meus-dados.json"');
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = JSON.stringify(data, null, 2);
  });

  r.post('/config', 'admin', async (ctx) => {
    const admin = requireAdmin(ctx);
    ctx.body = await s.account.updateConfig(admin.id, body(ctx));
  });

  return r;
}
