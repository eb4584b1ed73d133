import Router from '@koa/router';
import type { AppState } from '../platform/http/context';
import { requireUser } from '../platform/http/context';
import { idOrName } from '../platform/validation';

const productKey = (v: string) => idOrName(v, 'E-book inválido.');
import type { CatalogueService } from './service';

export function catalogueRoutes(catalogue: CatalogueService) {
  const r = new Router<AppState>({ prefix: '/api' });

  r.get('/infoproducts', async (ctx) => {
    ctx.body = { items: await catalogue.list(ctx.query) };
  });

  r.get('/infoproducts/sections', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await catalogue.sections(ctx.query);
  });

  r.get('/infoproducts/:idOrSku', async (ctx) => {
    ctx.body = await catalogue.detail(productKey(ctx.params.idOrSku));
  });

  r.get('/infoproducts/:idOrSku/open-draw', async (ctx) => {
    ctx.body = await catalogue.openDraw(productKey(ctx.params.idOrSku), String(ctx.query.include ?? '').split(',').includes('numbers'));
  });

  r.post('/infoproducts/:idOrSku/ensure-open-draw', async (ctx) => {
    requireUser(ctx);
    ctx.body = await catalogue.ensureOpenDraw(productKey(ctx.params.idOrSku));
  });

  r.get('/config', async (ctx) => {
    ctx.body = await catalogue.publicConfig();
  });

  return r;
}
