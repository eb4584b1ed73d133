import type { Conn, Trx } from '../platform/db';
import { audit } from '../platform/audit';
import { emitEvent } from '../platform/events';
import type { AppConfig } from '../platform/app-config';
import { effectiveTicketPrice } from './serializers';
import * as q from './queries';
import { drawAuditSnapshot } from './admin-schemas';

/**
 * The "current draw" (RULES D7, N9, D8) and what it costs, in one query: the main series' open
 * draw, else the newest open draw; never a draw of an archived (inactive) e-book.
 */
export async function currentDraw(conn: Conn, cfg: AppConfig): Promise<{ id: number; price_cents: number } | null> {
  const row: { id: string | number; ticket_price_cents_override: number | null; product_price_cents: number | null } | undefined =
    await conn('draws as d')
      .leftJoin('infoproducts as p', 'p.id', 'd.infoproduct_id')
      .where('d.status', 'open')
      .where((w) => w.whereNull('d.infoproduct_id').orWhere('p.active', true))
      .orderByRaw('(d.infoproduct_id IS NOT DISTINCT FROM ?::bigint) DESC, d.id DESC', [cfg.main_infoproduct_id])
      .first('d.id', 'd.ticket_price_cents_override', 'p.price_cents as product_price_cents');
  if (!row) return null;
  return {
    id: Number(row.id),
    price_cents: effectiveTicketPrice(row, { productPriceCents: row.product_price_cents, configTicketPriceCents: cfg.ticket_price_cents }),
  };
}

/**
 * RULES D8: archiving an e-book closes its open draw, in the archiving transaction, as an admin's
 * close (a pause: closed_by 'admin', a draw.closed event, an audit entry). Called by the catalogue
 * before it locks the product row (draw row first, the sale paths' order). Returns the closed draw's id.
 */
export async function closeOpenDrawOfArchived(trx: Trx, productId: number, adminId: number | null): Promise<number | null> {
  const open = await q.findOpenDrawOfProduct(trx, productId);
  if (!open) return null;
  const before = await q.lockDraw(trx, open.id, 'update');
  if (!before || before.status !== 'open') return null;
  const [after] = await trx('draws')
    .where({ id: before.id })
    .update({ status: 'closed', closed_by: 'admin', closed_at: trx.fn.now(), updated_at: trx.fn.now() })
    .returning('*');
  await emitEvent(trx, 'draw.closed', { drawId: before.id, by: 'admin' });
  await audit(trx, {
    actorUserId: adminId,
    actor: adminId === null ? 'cli' : 'admin',
    action: 'draw.closed_by_archive',
    entity: 'draw',
    entityId: before.id,
    data: { infoproduct_id: productId, before: drawAuditSnapshot(before), after: drawAuditSnapshot(after) },
  });
  return before.id;
}
