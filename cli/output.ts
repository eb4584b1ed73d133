/**
 * The CLI's output (docs/RULES: Portuguese for people, raw values for machines): `--json` prints
 * the values as the services return them; tables get Portuguese headers, money in reais (pt-BR)
 * and instants in Brasília time (America/Sao_Paulo).
 */

/** Portuguese column headers of the CLI's tables, by the field's name; other fields show their name. */
export const HEADERS: Record<string, string> = {
  id: 'id',
  title: 'título',
  name: 'nome',
  email: 'e-mail',
  phone: 'celular',
  is_admin: 'admin',
  status: 'situação',
  sku: 'sku',
  kind: 'tipo',
  provider: 'provedor',
  provider_status: 'situação no provedor',
  amount: 'valor',
  amount_cents: 'valor',
  price_cents: 'preço',
  cents: 'valor',
  user: 'cliente',
  to: 'para',
  subject: 'assunto',
  total_numbers: 'números',
  numbers: 'números',
  sold: 'vendidos',
  reserved: 'reservados',
  available: 'livres',
  winner_number: 'número vencedor',
  winning_number: 'número vencedor',
  winner_initials: 'iniciais',
  winner_name: 'vencedor',
  winner_email: 'e-mail do vencedor',
  draw: 'sorteio',
  draw_id: 'sorteio',
  run: 'execução',
  contest_number: 'concurso',
  days_since: 'dias',
  product_name: 'produto',
  product_link: 'link',
  payment: 'pagamento',
  payment_id: 'pagamento',
  attempts: 'tentativas',
  error: 'erro',
  reason: 'motivo',
  flagged: 'em análise',
  reviewed: 'revisado',
  job: 'tipo de job',
  waiting: 'aguardando',
  active: 'ativos',
  delayed: 'adiados',
  failed: 'com falha',
  completed: 'concluídos',
  created_at: 'criado em',
  updated_at: 'atualizado em',
  closed_at: 'fechado em',
  opened_at: 'aberto em',
  realized_at: 'realizado em',
  paid_at: 'pago em',
  failed_at: 'falhou em',
  drawn_at: 'realizado em',
};

/** The header of a field: HEADERS, else the field's name with spaces. */
export function headerOf(field: string): string {
  return HEADERS[field] ?? field.replace(/_/g, ' ');
}

// Built on first use: creating an Intl formatter costs milliseconds, and `--help` prints no money.
let money: Intl.NumberFormat | null = null;
let brasiliaFormat: Intl.DateTimeFormat | null = null;

/** Cents as reais, pt-BR: 123456 → "R$ 1.234,56", -250 → "-R$ 2,50" (plain spaces, for terminals). */
export function brl(cents: number): string {
  money ??= new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });
  return money.format(cents / 100).replace(/\s/g, ' ');
}

/** An instant in Brasília time, "25/11/2026 01:54"; a value that is not an instant comes back as text. */
export function brasilia(v: Date | string | number): string {
  const d = v instanceof Date ? v : new Date(v);
  if (Number.isNaN(d.getTime())) return String(v);
  brasiliaFormat ??= new Intl.DateTimeFormat('pt-BR', {
    timeZone: 'America/Sao_Paulo',
    day: '2-digit',
    month: '2-digit',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  return brasiliaFormat.format(d).replace(', ', ' ');
}

/** An ISO 8601 instant as the services serialize it ("2026-11-25T04:54:09.000Z", with an offset or Z). */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/** One table cell: instants in Brasília time, `*_cents` fields (and `cents`) in reais, yes/no in Portuguese, the rest as text. */
export function cellText(field: string, v: unknown): string {
  if (v == null) return '';
  if (typeof v === 'boolean') return v ? 'sim' : 'não';
  if (v instanceof Date) return brasilia(v);
  if (typeof v === 'string' && ISO_INSTANT.test(v)) return brasilia(v);
  if (typeof v === 'number' && (field === 'cents' || field.endsWith('_cents'))) return brl(v);
  return String(v);
}

/** Prints rows as JSON (--json: the raw values) or as an aligned text table with Portuguese headers. */
export function printRows(rows: Array<Record<string, unknown>>, json: boolean, columns?: string[]) {
  if (json) {
    process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
    return;
  }
  if (!rows.length) {
    process.stdout.write('(nenhum registro)\n');
    return;
  }
  const cols = columns ?? Object.keys(rows[0]);
  const heads = cols.map(headerOf);
  const cells = rows.map((r) => cols.map((c) => cellText(c, r[c])));
  const widths = cols.map((_c, i) => Math.min(60, Math.max(heads[i].length, ...cells.map((r) => r[i].length))));
  const line = (vals: string[]) =>
    vals
      .map((v, i) => v.slice(0, 60).padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  process.stdout.write(line(heads) + '\n' + line(widths.map((w) => '-'.repeat(w))) + '\n');
  for (const r of cells) process.stdout.write(line(r) + '\n');
}
