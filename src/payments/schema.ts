import { z } from 'zod';
import { Id } from '../platform/validation';

/** Input schemas of the payments module (every entry point parses with one of these). */

export const AdminGrantCommand = z.object({
  user: z.string().trim().min(1, 'Informe o usuário (e-mail ou id).'),
  product: z.string().trim().min(1, 'Informe o e-book (SKU ou id).'),
  quantity: z.coerce
    .number({ error: 'Quantidade deve ser um número inteiro.' })
    .int('Quantidade deve ser inteira.')
    .min(1, 'Quantidade mínima: 1.')
    .max(1000, 'Quantidade máxima: 1000.'),
});

export const MAX_EBOOKS_PER_PURCHASE = 20;

export const InfoproductPaymentCommand = z.object({
  infoproduct_id: Id('Informe o e-book.'),
  quantity: z.coerce
    .number({ error: 'Informe a quantidade.' })
    .int('Quantidade inválida.')
    .min(1, 'Compre pelo menos 1 e-book.')
    .max(MAX_EBOOKS_PER_PURCHASE, 'Limite: até 20 unidades por compra'),
  amount_cents_total: z.coerce.number({ error: 'Informe o valor total.' }).int('Valor inválido.').min(0, 'Valor inválido.'),
});

export const ReservationPixCommand = z
  .object({
    reservationId: Id('Reserva inválida.').optional(),
    reservation_id: Id('Reserva inválida.').optional(),
  })
  .transform((v) => ({ reservationId: v.reservationId ?? v.reservation_id }))
  .refine((v) => v.reservationId != null, { message: 'Informe a reserva (reservationId).', path: ['reservationId'] });

export const ConfirmPurchaseCommand = z.object({
  payment_id: Id('Informe o pagamento.'),
  infoproduct_id: Id('E-book inválido.').optional(),
});

export const PaymentId = Id('Pagamento inválido.');

/** An operator's refund (`payments refund`, the console's 'Reembolsar'): why, for the audit and the review. */
export const RefundCommand = z.object(
  {
    reason: z
      .string({ error: 'Informe o motivo do reembolso.' })
      .trim()
      .min(3, 'Informe o motivo do reembolso (pelo menos 3 caracteres).')
      .max(500, 'O motivo pode ter no máximo 500 caracteres.'),
  },
  { error: 'Envie um objeto JSON com o motivo (reason).' },
);
