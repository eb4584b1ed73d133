import { useState, type ReactNode } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Card, Flex, Form, Grid, Input, Modal, Table, Tag, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import { CheckOutlined, RollbackOutlined } from '@ant-design/icons';
import { errorMessage } from '../../api/client';
import type { AdminPayment } from '../../api/types';
import { formatBRL } from '../../components/product/format';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { paymentsReviewApi } from './adminApi';
import { PagedList } from './shared/PagedList';
import { adminKeys, useKeptQuery } from './shared/queries';
import { PAYMENT_KIND, PAYMENT_STATUS, reviewReasonText } from '../../statusLabels';
import { PaymentsToolbar, viewFilters, type PaymentsView } from './payments/PaymentsToolbar';
import './admin-pages.css';

const PAGE = 50;

/** A payment the sandbox can still approve: not approved yet and not undone. */
const approvable = (p: AdminPayment) => p.sandbox_approvable && ['pending', 'expired', 'cancelled', 'rejected'].includes(p.status);

/**
 * What the operator may refund: an approved payment with money in it (the server refuses anything
 * else with 409; a R$ 0,00 admin grant has nothing to give back, RULES RF8).
 */
const refundable = (p: AdminPayment) => p.status === 'approved' && p.amount_cents > 0;

const dateTime = (iso: string | null) => (iso ? new Date(iso).toLocaleString('pt-BR', { dateStyle: 'short', timeStyle: 'short' }) : '—');

export default function PaymentsReviewPage() {
  useDocumentTitle('Pagamentos para revisar');
  const { message, modal } = App.useApp();
  const [status, setStatus] = useState<string>('');
  const [view, setView] = useState<PaymentsView>('todo');
  const [query, setQuery] = useState('');
  // Keyset pages (RULES P14): the cursor of each page after the first; offset only numbers the pages.
  const [cursors, setCursors] = useState<number[]>([]);
  const offset = cursors.length * PAGE;
  const [reviewing, setReviewing] = useState<AdminPayment | null>(null);
  const [form] = Form.useForm<{ note: string }>();
  const [refunding, setRefunding] = useState<AdminPayment | null>(null);
  const [refundForm] = Form.useForm<{ reason: string }>();
  // Phones get one card per payment (every column readable without scrolling sideways).
  const wide = Grid.useBreakpoint().md ?? true;
  const client = useQueryClient();

  // The filters and the page are the query's key: a change loads that list, the last one stays shown meanwhile.
  const filters = { status, ...viewFilters(view), q: query || undefined, limit: PAGE, cursor: cursors[cursors.length - 1] };
  const list = useKeptQuery([...adminKeys.payments, filters], (signal) => paymentsReviewApi.list(filters, signal));
  const items = list.data?.items ?? null;
  const hasMore = list.data?.hasMore ?? false;
  const nextCursor = list.data?.next_cursor ?? null;
  const toOffset = (next: number) =>
    setCursors((c) => (next > offset ? (nextCursor !== null ? [...c, nextCursor] : c) : c.slice(0, Math.max(0, next / PAGE))));
  const emptyText = view === 'todo' && !query ? 'Nenhum pagamento para revisar.' : 'Nenhum pagamento encontrado.';
  const loading = list.loading;
  const loadError = list.error && !list.isFetching ? errorMessage(list.error, 'Não foi possível carregar os pagamentos.') : null;
  const refresh = () => void list.refetch();
  const changed = () => void client.invalidateQueries({ queryKey: adminKeys.payments });

  const review = useMutation({
    mutationFn: (a: { id: number; note: string }) => paymentsReviewApi.review(a.id, a.note),
    onSuccess: (_r, a) => {
      void message.success(`Pagamento #${a.id} marcado como revisado.`);
      setReviewing(null);
      changed();
    },
  });
  const saving = review.isPending;
  const reviewError = review.error ? errorMessage(review.error, 'Não foi possível marcar como revisado.') : null;

  const refund = useMutation({
    mutationFn: (a: { id: number; reason: string }) => paymentsReviewApi.refund(a.id, a.reason),
    onSuccess: (r) => {
      if (r.refund.pending) void message.info(`Reembolso do pagamento #${r.id} pedido; o status muda quando o provedor confirmar.`);
      else if (r.refund.already)
        void message.info(`O pagamento #${r.id} já estava ${PAYMENT_STATUS[r.status]?.label.toLowerCase() ?? r.status}: nada mudou.`);
      else void message.success(`Pagamento #${r.id} reembolsado.`);
      setRefunding(null);
      changed();
    },
  });
  const refundSaving = refund.isPending;
  const refundError = refund.error ? errorMessage(refund.error, 'Não foi possível reembolsar.') : null;

  function openReview(p: AdminPayment) {
    review.reset();
    form.resetFields();
    form.setFieldsValue({ note: '' });
    setReviewing(p);
  }

  async function submitReview() {
    if (!reviewing) return;
    let note: string;
    try {
      note = (await form.validateFields()).note;
    } catch {
      return;
    }
    review.mutate({ id: reviewing.id, note: note.trim() });
  }

  function openRefund(p: AdminPayment) {
    refund.reset();
    refundForm.resetFields();
    setRefunding(p);
  }

  async function submitRefund() {
    if (!refunding) return;
    let reason: string;
    try {
      reason = (await refundForm.validateFields()).reason;
    } catch {
      return;
    }
    refund.mutate({ id: refunding.id, reason: reason.trim() });
  }

  const approve = useMutation({ mutationFn: (id: number) => paymentsReviewApi.approve(id), onSuccess: changed });

  function confirmApprove(p: AdminPayment) {
    modal.confirm({
      title: `Aprovar o pagamento #${p.id} no sandbox?`,
      content: `Simula a confirmação do banco para ${formatBRL(p.amount_cents)} e entrega o que foi comprado.`,
      okText: 'Aprovar',
      cancelText: 'Cancelar',
      onOk: async () => {
        try {
          const r = await approve.mutateAsync(p.id);
          void message.success(`Pagamento #${p.id}: ${PAYMENT_STATUS[r.status]?.label ?? r.status}.`);
        } catch (e) {
          void message.error(errorMessage(e, 'Não foi possível aprovar.'));
        }
      },
    });
  }

  const columns: TableColumnsType<AdminPayment> = [
    { title: 'ID', dataIndex: 'id', key: 'id', width: 72 },
    { title: 'Data', dataIndex: 'created_at', key: 'created_at', render: (v: string) => dateTime(v) },
    {
      title: 'Cliente',
      key: 'user',
      render: (_: unknown, p) => (
        <div className="admin-cell-stack">
          <span>{p.user_name ?? `#${p.user_id}`}</span>
          <Typography.Text type="secondary">{p.user_email}</Typography.Text>
        </div>
      ),
    },
    {
      title: 'Valor',
      key: 'amount',
      align: 'right',
      render: (_: unknown, p) => (
        <div className="admin-cell-stack">
          <span>{formatBRL(p.amount_cents)}</span>
          <Typography.Text type="secondary">{PAYMENT_KIND[p.kind] ?? p.kind}</Typography.Text>
        </div>
      ),
    },
    {
      title: 'Status',
      dataIndex: 'status',
      key: 'status',
      render: (v: string, p) => (
        <Flex gap={4} wrap>
          <Tag color={PAYMENT_STATUS[v]?.color}>{PAYMENT_STATUS[v]?.label ?? v}</Tag>
          {p.fulfilment_on_hold && <Tag color="error">Entrega retida</Tag>}
        </Flex>
      ),
    },
    { title: 'Motivo', dataIndex: 'review_reason', key: 'reason', render: (_: unknown, p) => reviewReasonText(p) },
    {
      title: 'Revisão',
      key: 'review',
      render: (_: unknown, p) =>
        p.reviewed_at ? (
          <div className="admin-cell-stack">
            <Tag color="success">Revisado</Tag>
            <Typography.Text type="secondary">
              {dateTime(p.reviewed_at)}
              {p.reviewed_by_name ? ` · ${p.reviewed_by_name}` : ''}
            </Typography.Text>
            {p.review_note && <span>{p.review_note}</span>}
          </div>
        ) : p.flagged_for_review ? (
          <Tag color="warning">A revisar</Tag>
        ) : (
          '—'
        ),
    },
    {
      title: 'Ações',
      key: 'actions',
      width: 200,
      render: (_: unknown, p) => (
        <Flex gap={8} wrap>
          {p.flagged_for_review && (
            <Button size="small" icon={<CheckOutlined />} onClick={() => openReview(p)}>
              Marcar como revisado
            </Button>
          )}
          {approvable(p) && (
            <Button size="small" onClick={() => confirmApprove(p)}>
              Aprovar (sandbox)
            </Button>
          )}
          {refundable(p) && (
            <Button size="small" danger icon={<RollbackOutlined />} onClick={() => openRefund(p)}>
              Reembolsar
            </Button>
          )}
        </Flex>
      ),
    },
  ];

  const reviewCell = columns.find((c) => c.key === 'review')!.render as (v: unknown, p: AdminPayment, i: number) => ReactNode;
  const actionsCell = columns.find((c) => c.key === 'actions')!.render as (v: unknown, p: AdminPayment, i: number) => ReactNode;
  const cards = (list: AdminPayment[]) =>
    list.length === 0 ? (
      <Card className="admin-card">{emptyText}</Card>
    ) : (
      <ul className="admin-cards" aria-label="Pagamentos">
        {list.map((p, i) => (
          <li key={p.id} data-payment-id={p.id}>
            <Card
              size="small"
              className="admin-card"
              title={`#${p.id} · ${formatBRL(p.amount_cents)}`}
              extra={<Tag color={PAYMENT_STATUS[p.status]?.color}>{PAYMENT_STATUS[p.status]?.label ?? p.status}</Tag>}
            >
              <dl className="admin-card-fields">
                <dt>Cliente</dt>
                <dd>
                  {p.user_name ?? `#${p.user_id}`} <Typography.Text type="secondary">{p.user_email}</Typography.Text>
                </dd>
                <dt>Data</dt>
                <dd>
                  {dateTime(p.created_at)} · {PAYMENT_KIND[p.kind] ?? p.kind}
                </dd>
                <dt>Motivo</dt>
                <dd>
                  {reviewReasonText(p)}
                  {p.fulfilment_on_hold && (
                    <Tag color="error" className="admin-inline-tag">
                      Entrega retida
                    </Tag>
                  )}
                </dd>
                <dt>Revisão</dt>
                <dd>{reviewCell(null, p, i)}</dd>
              </dl>
              {actionsCell(null, p, i)}
            </Card>
          </li>
        ))}
      </ul>
    );

  return (
    <div className="page admin-page">
      <Typography.Title level={1} className="admin-page-title">
        Pagamentos para revisar
      </Typography.Title>
      <Typography.Paragraph type="secondary" className="admin-page-lead">
        Aprovações depois do prazo, estornos, chargebacks e valores diferentes do cobrado ficam marcados aqui até alguém revisar. Em
        “Todos”, todos os pagamentos; a busca procura em todos eles.
      </Typography.Paragraph>
      <PaymentsToolbar
        view={view}
        status={status}
        query={query}
        onView={(v) => {
          setCursors([]);
          setView(v);
        }}
        onStatus={(v) => {
          setCursors([]);
          setStatus(v);
        }}
        onSearch={(q) => {
          setCursors([]);
          setQuery(q);
          if (q) setView('all');
        }}
        onRefresh={refresh}
      />
      <PagedList<AdminPayment>
        loadError={loadError}
        onRetry={refresh}
        items={items}
        loading={loading}
        wide={wide}
        cards={cards}
        offset={offset}
        hasMore={hasMore}
        pageSize={PAGE}
        onOffset={toOffset}
        table={
          <Table<AdminPayment>
            rowKey="id"
            columns={columns}
            dataSource={items ?? []}
            loading={loading}
            pagination={false}
            scroll={{ x: 880 }}
            size="middle"
            locale={{ emptyText }}
          />
        }
      />
      <Modal
        open={reviewing !== null}
        title={reviewing ? `Marcar o pagamento #${reviewing.id} como revisado` : ''}
        onCancel={() => setReviewing(null)}
        destroyOnHidden
        footer={[
          <Button key="cancel" onClick={() => setReviewing(null)}>
            Cancelar
          </Button>,
          <Button key="ok" type="primary" loading={saving} onClick={submitReview}>
            Marcar como revisado
          </Button>,
        ]}
      >
        {reviewing?.review_reason && <Typography.Paragraph>Motivo: {reviewReasonText(reviewing)}</Typography.Paragraph>}
        <Form form={form} layout="vertical" disabled={saving}>
          <Form.Item
            name="note"
            label="Nota"
            rules={[
              { required: true, whitespace: true, message: 'Escreva uma nota sobre a revisão.' },
              { max: 2000, message: 'A nota pode ter no máximo 2000 caracteres.' },
            ]}
          >
            <Input.TextArea rows={4} maxLength={2000} showCount placeholder="O que foi verificado ou decidido" />
          </Form.Item>
        </Form>
        {reviewError && <Alert type="error" showIcon title={reviewError} />}
      </Modal>
      <Modal
        open={refunding !== null}
        title={refunding ? `Reembolsar o pagamento #${refunding.id}?` : ''}
        onCancel={() => setRefunding(null)}
        destroyOnHidden
        footer={[
          <Button key="cancel" onClick={() => setRefunding(null)}>
            Cancelar
          </Button>,
          <Button key="ok" type="primary" danger loading={refundSaving} onClick={submitRefund}>
            Reembolsar
          </Button>,
        ]}
      >
        {refunding && (
          <Typography.Paragraph>
            {formatBRL(refunding.amount_cents)} voltam para {refunding.user_name ?? `o cliente #${refunding.user_id}`} pelo provedor de
            pagamento. Os vouchers não usados desta compra são revogados, os números que ela comprou são anulados (liberados se o sorteio
            estiver aberto), o cashback é estornado e o acesso ao e-book termina. Não dá para desfazer.
          </Typography.Paragraph>
        )}
        <Form form={refundForm} layout="vertical" disabled={refundSaving}>
          <Form.Item
            name="reason"
            label="Motivo"
            rules={[
              { required: true, whitespace: true, message: 'Informe o motivo do reembolso.' },
              { min: 3, message: 'Informe o motivo do reembolso (pelo menos 3 caracteres).' },
              { max: 500, message: 'O motivo pode ter no máximo 500 caracteres.' },
            ]}
          >
            <Input.TextArea rows={3} maxLength={500} showCount placeholder="Por que este pagamento é reembolsado" />
          </Form.Item>
        </Form>
        {refundError && <Alert type="error" showIcon title={refundError} />}
      </Modal>
    </div>
  );
}
