import type { AdminDraw, AdminPayment, AutopayRunStatus, OpenBuyerNumber, ParticipantEntry, WalkReason } from './api/types';

/**
 * The words for the codes the server sends (statuses, kinds, review flags), declared once: the
 * server answers with codes, the web words them. Imported by the admin console only today, so it
 * ships in the console's lazy chunk; a store page may import it too.
 */

/** A payment's status (GET /api/admin/payments), with the colour of its tag. */
export const PAYMENT_STATUS: Record<string, { label: string; color?: string }> = {
  pending: { label: 'Pendente', color: 'processing' },
  authorized: { label: 'Autorizado', color: 'processing' },
  approved: { label: 'Aprovado', color: 'success' },
  in_mediation: { label: 'Em disputa', color: 'warning' },
  rejected: { label: 'Recusado', color: 'error' },
  cancelled: { label: 'Cancelado' },
  expired: { label: 'Expirado' },
  refunded: { label: 'Estornado', color: 'warning' },
  charged_back: { label: 'Chargeback', color: 'error' },
};

/** What a payment paid for. */
export const PAYMENT_KIND: Record<string, string> = {
  infoproduct: 'E-book',
  reservation: 'Números',
  autopay: 'Compra automática',
  admin: 'Concessão do admin',
};

/** The status a payment was approved after, as 'aprovado depois de …' ends. */
const APPROVED_AFTER: Record<string, string> = {
  expired: 'expirar',
  cancelled: 'ser cancelado',
  rejected: 'ser recusado',
  refunded: 'ser estornado',
  charged_back: 'ser contestado',
};

/** Why a payment is flagged, for a person: the server's code worded here, any other reason as sent. */
export function reviewReasonText(p: Pick<AdminPayment, 'review_reason' | 'review_flag'>): string {
  if (!p.review_reason) return '—';
  const flag = p.review_flag;
  if (flag?.code === 'approved_after' && APPROVED_AFTER[flag.status]) return `aprovado depois de ${APPROVED_AFTER[flag.status]}`;
  return p.review_reason;
}

/** A draw's status: the dashboard's chip and the held raffles' tag (upper case), and in a sentence. */
export const DRAW_STATUS: Record<AdminDraw['status'], string> = { open: 'ABERTO', closed: 'FECHADO', sorteado: 'SORTEADO' };
export const DRAW_STATUS_WORD: Record<AdminDraw['status'], string> = { open: 'aberto', closed: 'fechado', sorteado: 'realizado' };

/** A number of a draw's board (the buyers page's grid and its CSV). */
export const BOARD_NUMBER_STATUS: Record<OpenBuyerNumber['status'], string> = {
  available: 'Disponível',
  reserved: 'Reservado',
  sold: 'Vendido',
};

/** A participant's number in a held draw, and how it was paid. */
export const ENTRY_STATUS: Record<ParticipantEntry['status'], string> = {
  approved: 'Pago',
  pending: 'Reservado',
  refunded: 'Reembolsado',
  charged_back: 'Contestado',
  voided: 'Cancelado',
};
export const ENTRY_PAYMENT_KIND: Record<NonNullable<ParticipantEntry['payment_kind']>, string> = {
  pix: 'PIX',
  autopay: 'Cartão (automática)',
  voucher: 'Voucher',
  admin: 'Atribuído pelo admin',
};

/** An autopay run of a draw, with its tag colour and a one-line explanation. */
export const AUTOPAY_RUN_STATUS: Record<AutopayRunStatus, { label: string; color: string; hint: string }> = {
  held: { label: 'Reservado', color: 'gold', hint: 'Números reservados, aguardando a cobrança (ou uma nova tentativa).' },
  charging: { label: 'Cobrando', color: 'blue', hint: 'Cobrança em andamento no provedor.' },
  approved: { label: 'Aprovado', color: 'green', hint: 'Cartão cobrado; números vendidos ao cliente.' },
  failed: { label: 'Recusado', color: 'red', hint: 'Cartão recusado; números liberados no quadro.' },
  released: {
    label: 'Liberado',
    color: 'default',
    hint: 'Sem cobrança (reserva encerrada ou compra automática cancelada); números liberados.',
  },
  skipped: { label: 'Ignorado', color: 'default', hint: 'Nenhum número pôde ser reservado (indisponível ou acima do limite por pessoa).' },
  provider_refused: {
    label: 'Recusa do provedor',
    color: 'volcano',
    hint: 'O provedor recusou a requisição (não o cartão): configuração nossa. Veja o erro e docs/DEPLOY.md.',
  },
};

/** An e-book of the catalogue: on sale or archived. */
export const infoproductStateLabel = (active: boolean) => (active ? 'Ativo' : 'Arquivado');

/** Why a drawn number was passed over, in the result dialog's preview (short; the public page says it in full). */
export const WALK_REASON_SHORT: Record<WalkReason, string> = {
  not_sold: 'não vendido',
  out_of_range: 'fora do tabuleiro',
  voided: 'anulado (pagamento estornado)',
};
