/**
 * The purchase receipt ("Comprovante de compra"): the same fields and words in the e-mail sent
 * when a payment is approved and in /conta. Pure functions only (the web bundle imports this file).
 */
import { TIME_ZONE } from './validation';

/** One paid payment as its receipt shows it. */
export interface ReceiptView {
  payment_id: number;
  /** The payment provider's id of the transaction (Mercado Pago / sandbox payment id). */
  provider_transaction_id: string | null;
  /** The PIX charge's txid (the id inside the QR code). */
  txid: string | null;
  /** The PIX end-to-end id of the payer's transfer (what a bank prints on a PIX receipt), when the provider reported it. */
  e2e_id: string | null;
  amount_cents: number;
  /** ISO instant of the approval. */
  paid_at: string;
  method: 'pix' | 'card' | 'admin';
  /** What the payment bought, in words ("2 e-books “Guia…” (2 números para escolher no Sorteio #007)"). */
  description: string;
}

export const RECEIPT_SUBJECT = 'Comprovante de compra';

/** R$ 1.234,50 (non-breaking space after R$, as Intl writes it). */
export function formatReceiptAmount(cents: number): string {
  return new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }).format(cents / 100);
}

let dtFormat: Intl.DateTimeFormat | null = null;
/** "25/11/2026 às 14:05 (horário de Brasília)", whatever the machine's time zone. */
export function formatBrasiliaDateTime(iso: string | Date): string {
  dtFormat ??= new Intl.DateTimeFormat('pt-BR', {
    timeZone: TIME_ZONE,
    day: '2-digit',
    month: '2-digit',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  const parts = Object.fromEntries(dtFormat.formatToParts(typeof iso === 'string' ? new Date(iso) : iso).map((p) => [p.type, p.value]));
  return `${parts.day}/${parts.month}/${parts.year} às ${parts.hour}:${parts.minute} (horário de Brasília)`;
}

export const METHOD_LABEL: Record<ReceiptView['method'], string> = {
  pix: 'PIX',
  card: 'Cartão de crédito',
  admin: 'Concessão do administrador',
};

const pad2 = (n: number) => String(n).padStart(2, '0');
const drawLabel = (id: number) => `Sorteio #${String(id).padStart(3, '0')}`;

/** What a payment bought, in words. */
export function describePurchase(p: {
  kind: 'infoproduct' | 'reservation' | 'autopay' | 'admin';
  quantity: number | null;
  numbers: number[] | null;
  draw_id: number | null;
  product_title: string | null;
}): string {
  if (p.kind === 'infoproduct' || p.kind === 'admin') {
    const q = p.quantity ?? 1;
    const what = `${q} ${q === 1 ? 'e-book' : 'e-books'}${p.product_title ? ` “${p.product_title}”` : ''}`;
    const where = p.draw_id != null ? ` no ${drawLabel(p.draw_id)}` : '';
    return `${what} (${q} ${q === 1 ? 'número' : 'números'} para escolher${where})`;
  }
  const ns = [...(p.numbers ?? [])].sort((a, b) => a - b).map(pad2);
  const what = ns.length === 1 ? `Número ${ns[0]}` : `Números ${ns.join(', ')}`;
  return `${what}${p.draw_id != null ? ` do ${drawLabel(p.draw_id)}` : ''}${p.kind === 'autopay' ? ' (compra automática)' : ''}`;
}

export const E2E_LABEL = 'ID da transação PIX (E2E)';
export const PROVIDER_ID_LABEL = 'Transação no provedor';

/**
 * The id that proves the payment: the PIX end-to-end id (the one on the payer's bank receipt), or
 * the provider's transaction id where there is none (cards, providers that do not report it).
 */
export function proofOfPayment(r: Pick<ReceiptView, 'e2e_id' | 'provider_transaction_id'>): { label: string; value: string } | null {
  if (r.e2e_id) return { label: E2E_LABEL, value: r.e2e_id };
  if (r.provider_transaction_id) return { label: PROVIDER_ID_LABEL, value: r.provider_transaction_id };
  return null;
}

/** The receipt's lines as label/value pairs (the e-mail and /conta list them in this order). */
export function receiptFields(r: ReceiptView): Array<[string, string]> {
  const out: Array<[string, string]> = [
    ['Valor', formatReceiptAmount(r.amount_cents)],
    ['Data e hora', formatBrasiliaDateTime(r.paid_at)],
    ['Compra', r.description],
    ['Forma de pagamento', METHOD_LABEL[r.method]],
    ['Pagamento nº', String(r.payment_id)],
  ];
  if (r.e2e_id) out.push([E2E_LABEL, r.e2e_id]);
  out.push([PROVIDER_ID_LABEL, r.provider_transaction_id ?? '—']);
  if (r.txid) out.push(['Identificador PIX (txid)', r.txid]);
  return out;
}

/** The e-mail's plain text. */
export function receiptMailText(r: ReceiptView, o: { firstName: string; publicUrl: string }): string {
  return [
    `Olá, ${o.firstName}!`,
    '',
    'Recebemos o seu pagamento. Este é o comprovante da sua compra:',
    '',
    ...receiptFields(r).map(([k, v]) => `${k}: ${v}`),
    '',
    `Baixe o seu e-book e escolha os seus números na sua área: ${o.publicUrl}/conta`,
    '',
    'Equipe Cota Verde',
  ].join('\n');
}
