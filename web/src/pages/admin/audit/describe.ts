import { formatDateTimeSeconds } from '../shared/dates';

/** Readable names for the audit log's entities and actions; an unknown one shows as recorded. */

export const ENTITY_LABELS: Record<string, string> = {
  draw: 'Sorteio',
  app_config: 'Configuração',
  user: 'Usuário',
  payment: 'Pagamento',
  infoproduct: 'Infoproduto',
  winner: 'Vencedor',
  coupon: 'Cupom',
  lottery_result: 'Resultado da Lotomania',
  autopay_profile: 'Compra automática',
};

const ACTION_LABELS: Record<string, string> = {
  'draw.created': 'Sorteio criado',
  'draw.updated': 'Sorteio editado',
  'draw.status_changed': 'Status do sorteio alterado',
  'draw.deleted': 'Sorteio excluído',
  'draw.new_series': 'NOVO SORTEIO (série principal)',
  'draw.ticket_price': 'Preço do bilhete alterado',
  'draw.closed_by_archive': 'Sorteio fechado (e-book arquivado)',
  'config.updated': 'Configurações alteradas',
  'user.registered': 'Cadastro de cliente',
  'user.promoted_admin': 'Usuário promovido a administrador',
  'user.admin_created': 'Administrador criado',
  'password_reset.requested': 'Redefinição de senha pedida',
  'password_reset.completed': 'Senha redefinida',
  'account.exported': 'Dados exportados (LGPD)',
  'vouchers.granted': 'Vouchers concedidos',
  'draw.decided': 'Sorteio apurado (vencedor)',
  'draw.result_corrected': 'Resultado do sorteio corrigido',
  'draw.redecided_after_refund': 'Sorteio apurado de novo (venda vencedora estornada)',
  'lottery_result.recorded': 'Resultado da Lotomania registrado',
  'lottery_result.corrected': 'Resultado da Lotomania corrigido',
  'lottery_result.draw_order_missing': 'Resultado da Lotomania publicado sem a ordem do sorteio',
  'winner.prize_updated': 'Prêmio do vencedor alterado',
  'winner.retracted': 'Vencedor anterior avisado da correção',
  'winner.announced': 'Novo vencedor avisado (correção)',
  'user.admin_email_proof_sent': 'Link de confirmação do e-mail de administração enviado',
  'user.admin_email_proved': 'E-mail de administração confirmado',
  'user.mfa_enabled': 'Verificação em duas etapas ativada',
  'user.mfa_disabled': 'Verificação em duas etapas desativada',
  'user.mfa_reset': 'Verificação em duas etapas redefinida pelo operador',
  'user.mfa_recovery_code_used': 'Código de recuperação usado no acesso',
  'config.admin_emails_mismatch': 'ADMIN_EMAILS diferente entre processos (e-mail de confirmação enviado mesmo assim)',
  'books.failed': 'Conferência dos livros encontrou divergências',
  'user.created': 'Cliente cadastrado pelo painel',
  'user.updated': 'Cliente editado',
  'user.deleted': 'Cliente excluído',
  'user.anonymized': 'Cliente anonimizado (LGPD)',
  'user.numbers_assigned': 'Números atribuídos',
  'coupon.adjusted': 'Saldo do cupom ajustado',
  'infoproduct.created': 'E-book criado',
  'infoproduct.updated': 'E-book editado',
  'infoproduct.archived': 'E-book arquivado',
  'infoproduct.file_uploaded': 'PDF do e-book enviado',
  'infoproduct.cover_uploaded': 'Capa do e-book enviada',
  'autopay.saved': 'Compra automática salva',
  'autopay.cancelled': 'Compra automática cancelada',
  'payment.reviewed': 'Pagamento revisado',
  'payment.checked': 'Pagamento consultado',
  'payment.sandbox_approved': 'Pagamento aprovado (sandbox)',
  'payment.approved': 'Pagamento aprovado',
  'payment.rejected': 'Pagamento recusado',
  'payment.expired': 'Pagamento expirado',
  'payment.cancelled': 'Pagamento cancelado',
  'payment.refunded': 'Pagamento estornado',
  'payment.refund_requested': 'Reembolso pedido ao provedor',
  'payment.charged_back': 'Chargeback do pagamento',
  'payment.pending': 'Pagamento pendente',
  'payment.authorized': 'Pagamento autorizado (aguarda captura)',
  'payment.in_mediation': 'Pagamento em disputa (mediação)',
  'payment.partially_refunded': 'Estorno parcial no provedor',
};

export const entityLabel = (entity: string) => ENTITY_LABELS[entity] ?? entity;
export const actionLabel = (action: string) => ACTION_LABELS[action] ?? action;

export const ACTOR_LABELS: Record<string, string> = { admin: 'Administrador', user: 'Cliente', cli: 'Linha de comando', system: 'Sistema' };

export interface FieldChange {
  field: string;
  before: string;
  after: string;
  changed: boolean;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** A value as one readable line: texts as they are, null as '—', objects as compact JSON. */
export function show(v: unknown): string {
  if (v === undefined) return '';
  if (v === null) return '—';
  // Timestamps as the admin reads them (local time, pt-BR), not as stored.
  if (typeof v === 'string')
    return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(v) ? formatDateTimeSeconds(v) : v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/**
 * Field by field comparison of an entry's before and after (objects flattened with dotted
 * names, e.g. draw.status): every field of either side, the changed ones marked.
 */
export function diffFields(before: unknown, after: unknown): FieldChange[] {
  const flat = (v: unknown, prefix = '', out: Record<string, unknown> = {}) => {
    if (isPlainObject(v)) {
      for (const [k, x] of Object.entries(v)) {
        if (isPlainObject(x)) flat(x, `${prefix}${k}.`, out);
        else out[`${prefix}${k}`] = x;
      }
    } else if (v !== null && v !== undefined) {
      out[prefix.replace(/\.$/, '') || 'valor'] = v;
    }
    return out;
  };
  const b = flat(before);
  const a = flat(after);
  const fields = [...new Set([...Object.keys(b), ...Object.keys(a)])];
  return fields.map((field) => {
    const bv = field in b ? show(b[field]) : '';
    const av = field in a ? show(a[field]) : '';
    return { field, before: bv, after: av, changed: bv !== av };
  });
}
