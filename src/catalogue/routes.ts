import { requireUser } from '../platform/http/context';
import { idOrName } from '../platform/validation';
import { sendCachedJson } from '../platform/read-cache';
import type { CatalogueService } from './service';
import { routes } from '../platform/http/routes';

const productKey = (v: string) => idOrName(v, 'E-book inválido.');

/**
 * Public reads: the same answer for every caller, served from the read cache as-is.
 * Mounted before the body parser and the bearer lookup (src/http.ts): they
 * never look at the caller, so a cache hit costs no query, signed in or not.
 */
export function catalogueReadRoutes(catalogue: CatalogueService) {
  const r = routes();

  r.get('/infoproducts', 'public', async (ctx) => {
    sendCachedJson(ctx, await catalogue.listJson(ctx.query));
  });

  // The storefront asks for sections without caching (spec §7): no-store, still served from the ≤ 1 s cache.
  r.get('/infoproducts/sections', 'public', async (ctx) => {
    sendCachedJson(ctx, await catalogue.sectionsJson(ctx.query), 'no-store');
  });

  r.get('/infoproducts/:idOrSku', 'public', async (ctx) => {
    sendCachedJson(ctx, await catalogue.detailJson(productKey(ctx.params.idOrSku)));
  });

  r.get('/infoproducts/:idOrSku/open-draw', 'public', async (ctx) => {
    sendCachedJson(
      ctx,
      await catalogue.openDrawJson(
        productKey(ctx.params.idOrSku),
        String(ctx.query.include ?? '')
          .split(',')
          .includes('numbers'),
      ),
    );
  });

  r.get('/config', 'public', async (ctx) => {
    sendCachedJson(ctx, await catalogue.publicConfigJson());
  });

  return r;
}

export function catalogueRoutes(catalogue: CatalogueService) {
  const r = routes();

  r.post('/infoproducts/:idOrSku/ensure-open-draw', 'customer', async (ctx) => {
    requireUser(ctx);
    ctx.body = await catalogue.ensureOpenDraw(productKey(ctx.params.idOrSku));
  });

  return r;
}
