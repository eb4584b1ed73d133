import { z } from 'zod';
import type { Db, Trx } from '../platform/db';
import { errors } from '../platform/errors';
import { audit } from '../platform/audit';
import { Id } from '../platform/validation';
import { countOf } from '../shared/plural';
import type { AssignNumbersResult } from '../shared/api/admin-users';
import * as dq from './queries';
import { sellNumbers } from './sales';
import { lockForSale } from './locks';
import type { DrawsService } from './service';
import type { ReservationsService } from './reservations';

/**
 * An admin's assignment of numbers to a customer (console 'Atribuir números', CLI): a sale like
 * every other, in the sales module's lock order (draw row → cells → draw+user), paid by an
 * approved R$ 0 payment that the payments module writes (hook wired in services.ts).
 */

export const AssignNumbersCommand = z.object(
  {
    user_id: Id('Usuário inválido.').optional(),
    draw_id: Id('Informe um sorteio e pelo menos um número.'),
    numbers: z
      .array(
        z
          .number({ error: 'Informe um sorteio e pelo menos um número.' })
          .int('Os números devem ser inteiros.')
          .min(0, 'Os números não podem ser negativos.')
          .max(999, 'Número fora da tabela.'),
        {
          error: 'Informe um sorteio e pelo menos um número.',
        },
      )
      .min(1, 'Informe um sorteio e pelo menos um número.')
      .max(1000, 'Informe no máximo 1000 números.')
      .refine((a) => new Set(a).size === a.length, 'Números repetidos na lista.'),
    override_max_per_user: z.boolean({ error: 'Ignorar o limite deve ser verdadeiro ou falso.' }).optional(),
  },
  { error: 'Envie os dados como um objeto JSON.' },
);

type Actor = { userId: number | null; via: 'admin' | 'cli' };

const pad = (n: number) => String(n).padStart(2, '0');
const notFound = () => errors.notFound('user_not_found', 'Usuário não encontrado.');

export interface NumberAssignmentsService {
  assign(actor: Actor, userId: number, input: unknown): Promise<AssignNumbersResult>;
}

export function createNumberAssignmentsService(deps: {
  db: Db;
  draws: DrawsService;
  reservations: ReservationsService;
  /** Writes the approved R$ 0 payment and its fulfilment record; answers its id (payments/records.ts). */
  recordAdminPayment: (trx: Trx, a: { userId: number; drawId: number; numbers: number[]; assignedBy: number | null }) => Promise<number>;
}): NumberAssignmentsService {
  const { db, draws } = deps;

  async function assign(actor: Actor, userId: number, input: unknown): Promise<AssignNumbersResult> {
    const cmd = AssignNumbersCommand.parse(input);
    if (cmd.user_id !== undefined && cmd.user_id !== userId)
      throw errors.validation('user_mismatch', 'O usuário do corpo não é o do endereço.');
    const numbers = [...cmd.numbers].sort((a, b) => a - b);
    // Holds past their time among these numbers are released first, by the expiry path.
    for (const reservationId of await dq.staleHoldsAmong(db, cmd.draw_id, numbers)) await deps.reservations.expire(reservationId);
    const result = await db.transaction(async (trx) => {
      const user = await trx('users').where({ id: userId }).whereNull('anonymized_at').forShare().first('id', 'name');
      if (!user) throw notFound();
      // RULES N4: draw, its cells, (draw, user). Sales in one draw serialize on the draw row (as
      // voucher consumption and paid reservations).
      const { draw, cells } = await lockForSale(trx, {
        drawIds: [cmd.draw_id],
        numbers,
        user: { id: userId },
        guard: (d) => {
          if (d.status !== 'open')
            throw errors.conflict('draw_closed', 'Este sorteio não está aberto: não é possível atribuir números.', { conflicts: numbers });
          const outOfRange = numbers.filter((n) => n >= d.total_numbers);
          if (outOfRange.length)
            throw errors.validation('number_out_of_range', `Número fora da tabela: ${outOfRange.map(pad).join(', ')}.`, {
              conflicts: outOfRange,
            });
        },
      });
      if (!draw) throw errors.notFound('draw_not_found', 'Sorteio não encontrado.');
      const conflicts = numbers.filter((n) => cells.find((c) => c.n === n)?.status !== 'available');
      if (conflicts.length)
        throw errors.conflict('numbers_conflict', `Estes números não estão disponíveis: ${conflicts.map(pad).join(', ')}.`, { conflicts });
      const owned = await dq.ownedCount(trx, draw.id, userId);
      if (draw.max_per_user > 0 && owned + numbers.length > draw.max_per_user && !cmd.override_max_per_user) {
        throw errors.conflict(
          'limit_exceeded',
          `Limite de ${countOf(draw.max_per_user, 'número', 'números')} por pessoa neste sorteio (o cliente já tem ${owned}). Marque “Ignorar o limite por usuário” para atribuir mesmo assim.`,
          { max: draw.max_per_user, owned },
        );
      }
      // The payment (R$ 0, delivered here and now, once) is written by payments, through the hook.
      const payment = { id: await deps.recordAdminPayment(trx, { userId, drawId: draw.id, numbers, assignedBy: actor.userId }) };
      await sellNumbers(trx, { drawId: draw.id, numbers, userId, paymentId: payment.id, source: 'admin' });
      const sellOut = await draws.closeIfSoldOut(trx, draw.id);
      await audit(trx, {
        actorUserId: actor.userId,
        actor: actor.via,
        action: 'user.numbers_assigned',
        entity: 'user',
        entityId: userId,
        data: {
          draw_id: draw.id,
          payment_id: payment.id,
          numbers,
          override_max_per_user: Boolean(cmd.override_max_per_user),
          over_limit: draw.max_per_user > 0 && owned + numbers.length > draw.max_per_user,
          before: { owned_in_draw: owned, draw_status: draw.status },
          after: {
            owned_in_draw: owned + numbers.length,
            draw_status: sellOut.closed ? 'closed' : draw.status,
            next_draw_id: sellOut.successorId,
          },
        },
      });
      return { drawId: draw.id, paymentId: Number(payment.id), ...sellOut };
    });
    draws.invalidateBoard(result.drawId);
    return {
      ok: true as const,
      message: 'Números atribuídos com sucesso.',
      user_id: userId,
      draw_id: result.drawId,
      numbers,
      payment_id: result.paymentId,
      sold_out: result.closed,
      next_draw_id: result.successorId,
    };
  }

  return { assign };
}
