import { CommanderError, type Command } from 'commander';
import type { Services } from '../../src/services';
import { brasilia, brl as money, printRows } from '../output';
import { parseId } from '../../src/shared/validation';
import { countOf } from '../../src/shared/plural';
import { PAYMENT_STATUSES, type AdminPayment } from '../../src/shared/api/admin-payments';

/** Usage mistakes (a missing argument or option, a bad value) exit with code 2; help still exits 0. */
function usageExit2(cmd: Command): Command {
  return cmd.exitOverride((err) => {
    if (err.exitCode === 0 || err.code === 'commander.helpDisplayed' || err.code === 'commander.help' || err.code === 'commander.version')
      throw err;
    throw new CommanderError(2, err.code, err.message);
  });
}

/** The one id rule of the API (RULES H4), or a usage error (exit 2). */
function paymentIdOrUsage(cmd: Command, id: string): number {
  const paymentId = parseId(id);
  if (paymentId === null)
    cmd.error('erro: o id do pagamento deve ser um número inteiro decimal (ex.: 42)', { exitCode: 2, code: 'cotaverde.invalidId' });
  return paymentId as number;
}

/** `payments show` as text: one "campo: valor" line each, then the payment's audit trail. */
function printPayment(p: AdminPayment & { audit?: Array<{ action: string; actor: string; created_at: string }> }) {
  const lines: Array<[string, unknown]> = [
    ['pagamento', `#${p.id}`],
    ['status', p.status],
    ['tipo', `${p.kind} (${p.provider}/${p.method ?? '-'})`],
    ['valor', money(p.amount_cents)],
    ['cliente', `${p.user_name ?? ''} <${p.user_email ?? ''}> (#${p.user_id})`],
    ['e-book', p.infoproduct_id ? `${p.infoproduct_title ?? ''} (#${p.infoproduct_id})` : '-'],
    ['sorteio', p.draw_id ?? '-'],
    ['números', p.numbers?.length ? p.numbers.join(', ') : '-'],
    ['quantidade', p.quantity ?? '-'],
    ['criado em', brasilia(p.created_at)],
    ['pago em', p.paid_at ? brasilia(p.paid_at) : '-'],
    ['em análise', p.flagged_for_review ? `sim: ${p.review_reason ?? ''}` : 'não'],
    ['entrega retida', p.fulfilment_on_hold ? 'sim' : 'não'],
    [
      'revisado',
      p.reviewed_at
        ? `${brasilia(p.reviewed_at)} por ${p.reviewed_by_name ?? p.reviewed_by ?? '-'}: ${p.review_note ?? ''}`
        : p.review_note
          ? `não (nota anterior: ${p.review_note})`
          : 'não',
    ],
  ];
  for (const [k, v] of lines) process.stdout.write(`${k}: ${v}\n`);
  if (p.audit?.length) {
    process.stdout.write('histórico:\n');
    for (const e of p.audit) process.stdout.write(`  ${brasilia(e.created_at)}  ${e.action}  (${e.actor})\n`);
  }
}

export function registerPaymentsCommands(program: Command, getServices: () => Services) {
  const payments = program
    .command('payments')
    .description('pagamentos: aprovação no sandbox, listagem e revisão dos marcados para análise');

  usageExit2(
    payments
      .command('approve')
      .description(
        'sandbox: aprova o PIX como se o banco tivesse confirmado; qualquer provedor: consulta o pagamento agora (mesmo expirado ou cancelado) e aplica o que ele disser',
      )
      .argument('<id>', 'id do pagamento')
      .option('--json', 'saída em JSON'),
  ).action(async function (this: Command, id: string, o: { json?: boolean }) {
    const paymentId = paymentIdOrUsage(this, id);
    const { payment: p, approvedAtBank } = await getServices().payments.approve(paymentId, { via: 'cli' });
    if (o.json)
      printRows([{ id: p.id, status: p.status, approved_at_bank: approvedAtBank, flagged_for_review: p.flagged_for_review }], true);
    else process.stdout.write(`pagamento #${p.id}: ${p.status}${p.flagged_for_review ? ` (em análise: ${p.review_reason ?? ''})` : ''}\n`);
  });

  usageExit2(
    payments
      .command('list')
      .description('lista pagamentos (mais recentes primeiro); --flagged: os marcados para análise, com o motivo')
      .option('--status <status>', PAYMENT_STATUSES.join(' | '))
      .option('--flagged', 'só os marcados para análise (aprovação tardia, estorno, chargeback, valor divergente)')
      .option('--unreviewed', 'só os ainda não revisados')
      .option('--limit <n>', 'quantidade (1-500)', '20')
      .option('--offset <n>', 'pular os primeiros n', '0')
      .option('--json', 'saída em JSON'),
  ).action(async function (
    this: Command,
    o: { status?: string; flagged?: boolean; unreviewed?: boolean; limit: string; offset: string; json?: boolean },
  ) {
    if (o.status && !(PAYMENT_STATUSES as readonly string[]).includes(o.status))
      this.error(`erro: --status deve ser um de: ${PAYMENT_STATUSES.join(', ')}`, { exitCode: 2, code: 'cotaverde.invalidStatus' });
    if (!/^\d+$/.test(o.limit) || Number(o.limit) < 1 || Number(o.limit) > 500)
      this.error('erro: --limit deve ser um inteiro entre 1 e 500', { exitCode: 2, code: 'cotaverde.invalidLimit' });
    if (!/^\d+$/.test(o.offset))
      this.error('erro: --offset deve ser um inteiro, 0 ou mais', { exitCode: 2, code: 'cotaverde.invalidOffset' });
    const page = await getServices().paymentsReview.list({
      status: o.status,
      flagged: o.flagged ? true : undefined,
      reviewed: o.unreviewed ? false : undefined,
      limit: o.limit,
      offset: o.offset,
    });
    if (o.json) {
      process.stdout.write(JSON.stringify(page, null, 2) + '\n');
      return;
    }
    const rows = page.items.map((p) => ({
      id: p.id,
      status: p.status,
      kind: p.kind,
      provider: p.provider,
      amount_cents: p.amount_cents,
      user: p.user_email,
      created_at: p.created_at,
      flagged: p.flagged_for_review ? 'sim' : '',
      reason: p.review_reason ?? '',
      reviewed: p.reviewed_at ? 'sim' : '',
    }));
    printRows(rows, false);
    if (page.hasMore) process.stdout.write(`… há mais: use --offset ${page.offset + page.limit}\n`);
  });

  usageExit2(
    payments
      .command('show')
      .description('mostra um pagamento: cliente, valor, motivo da análise, revisão e histórico')
      .argument('<id>', 'id do pagamento')
      .option('--json', 'saída em JSON'),
  ).action(async function (this: Command, id: string, o: { json?: boolean }) {
    const p = await getServices().paymentsReview.show(paymentIdOrUsage(this, id));
    if (o.json) process.stdout.write(JSON.stringify(p, null, 2) + '\n');
    else printPayment(p);
  });

  usageExit2(
    payments
      .command('review')
      .description('marca um pagamento em análise como revisado, com uma nota (fica no histórico)')
      .argument('<id>', 'id do pagamento')
      .option('--note <text>', 'o que foi verificado ou decidido (obrigatório)')
      .option('--json', 'saída em JSON'),
  ).action(async function (this: Command, id: string, o: { note?: string; json?: boolean }) {
    const paymentId = paymentIdOrUsage(this, id);
    if (!o.note || !o.note.trim())
      this.error('erro: informe --note <texto> com o que foi revisado', { exitCode: 2, code: 'cotaverde.missingNote' });
    const p = await getServices().paymentsReview.markReviewed({ via: 'cli' }, paymentId, { note: o.note });
    if (o.json) process.stdout.write(JSON.stringify(p, null, 2) + '\n');
    else process.stdout.write(`pagamento #${p.id} marcado como revisado: ${p.review_note}\n`);
  });

  usageExit2(
    payments
      .command('refund')
      .description(
        'reembolsa um pagamento aprovado pelo provedor (Mercado Pago: estorno total; sandbox: na hora) e desfaz o que ele comprou: vouchers não usados, números, cashback, acesso ao e-book',
      )
      .argument('<id>', 'id do pagamento')
      .option('--reason <text>', 'motivo do reembolso (obrigatório; fica no histórico)')
      .option('--json', 'saída em JSON (um documento em stdout)'),
  ).action(async function (this: Command, id: string, o: { reason?: string; json?: boolean }) {
    const paymentId = paymentIdOrUsage(this, id);
    if (!o.reason || !o.reason.trim())
      this.error('erro: informe --reason <texto> com o motivo do reembolso', { exitCode: 2, code: 'cotaverde.missingReason' });
    const p = await getServices().paymentsReview.refund({ via: 'cli' }, paymentId, { reason: o.reason });
    if (o.json) {
      process.stdout.write(JSON.stringify(p, null, 2) + '\n');
      return;
    }
    const what = p.refund.already
      ? `já estava ${p.status === 'refunded' ? 'reembolsado' : 'contestado (chargeback)'}: nada mudou`
      : p.refund.pending
        ? 'reembolso pedido ao provedor; o pagamento muda quando ele confirmar'
        : 'reembolsado';
    process.stdout.write(`pagamento #${p.id}: ${what}${p.review_reason ? ` (${p.review_reason})` : ''}\n`);
  });

  usageExit2(
    payments
      .command('recheck')
      .description(
        'pergunta de novo ao provedor sobre pagamentos aprovados (estorno, chargeback, disputa, estorno parcial) e aplica o que mudou: os devidos no calendário, um (--id) ou os aprovados nos últimos dias (--since)',
      )
      .option('--id <id>', 'só este pagamento')
      .option('--since <days>', 'todos os aprovados nos últimos <days> dias (1 a 180)')
      .option('--json', 'saída em JSON'),
  ).action(async function (this: Command, o: { id?: string; since?: string; json?: boolean }) {
    if (o.id !== undefined && o.since !== undefined)
      this.error('erro: use --id ou --since, não os dois', { exitCode: 2, code: 'cotaverde.conflictingOptions' });
    const id = o.id !== undefined ? paymentIdOrUsage(this, o.id) : undefined;
    let sinceDays: number | undefined;
    if (o.since !== undefined) {
      sinceDays = /^\d{1,3}$/.test(o.since) ? Number(o.since) : NaN;
      if (!(sinceDays >= 1 && sinceDays <= 180))
        this.error('erro: --since deve ser um número de dias de 1 a 180', { exitCode: 2, code: 'cotaverde.invalidSince' });
    }
    const out = await getServices().payments.recheck({ id, sinceDays });
    if (o.json) {
      process.stdout.write(JSON.stringify(out, null, 2) + '\n');
      return;
    }
    process.stdout.write(
      `${countOf(out.checked, 'pagamento consultado', 'pagamentos consultados')}, ${out.changed.length} com mudança${out.failed ? `, ${out.failed} sem resposta do provedor (nova tentativa na próxima execução)` : ''}\n`,
    );
    for (const c of out.changed)
      process.stdout.write(`  #${c.id}: ${c.from} → ${c.to}${c.refunded_cents ? ` (estornado: ${money(c.refunded_cents)})` : ''}\n`);
  });
}
