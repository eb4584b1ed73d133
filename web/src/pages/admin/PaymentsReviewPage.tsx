import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { Alert, App, Button, Card, Flex, Form, Grid, Input, Modal, Select, Table, Tag, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import { CheckOutlined, ReloadOutlined, RollbackOutlined } from '@ant-design/icons';
import { errorMessage } from '../../api/client';
import type { AdminPayment } from '../../api/types';
import { formatBRL } from '../../components/product/format';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { paymentsReviewApi } from './adminApi';
import { PagedList } from './shared/PagedList';
import './admin-pages.css';

const PAGE = 50;

export const STATUS_LABELS: Record<string, { label: string; color?: string }> = {
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

const KIND_LABELS: Record<string, string> = { infoproduct: 'E-book', reservation: 'Números', autopay: 'Compra automática', admin: 'Concessão do admin' };

/** A payment the sandbox can still approve: not approved yet and not undone. */
const approvable = (p: AdminPayment) => p.sandbox_approvable && ['pending', 'expired', 'cancelled', 'rejected'].includes(p.status);

/** What the operator may refund: an approved payment (the server refuses anything else with 409). */
const refundable = (p: AdminPayment) => p.status === 'approved';

const dateTime = (iso: string | null) => (iso ? new Date(iso).toLocaleString('pt-BR', { dateStyle: 'short', timeStyle: 'short' }) : '—');

type Flagged = 'flagged' | 'all';
type Reviewed = 'todo' | 'done' | 'any';

/** The server's flag reason for a person: the status code in 'aprovado depois de expired' in Portuguese. */
const AFTER: Record<string, string> = { expired: 'expirar', cancelled: 'ser cancelado', rejected: 'ser recusado', refunded: 'ser estornado', charged_back: 'ser contestado' };
function reasonText(reason: string | null | undefined): string {
  if (!reason) return '—';
  return reason.replace(/^aprovado depois de (\w+)/, (all, status: string) => (AFTER[status] ? `aprovado depois de ${AFTER[status]}` : all));
}

export default function PaymentsReviewPage() {
  useDocumentTitle('Pagamentos para revisar');
  const { message, modal } = App.useApp();
  const [status, setStatus] = useState<string>('');
  const [flagged, setFlagged] = useState<Flagged>('flagged');
  const [reviewed, setReviewed] = useState<Reviewed>('todo');
  const [offset, setOffset] = useState(0);
  const [items, setItems] = useState<AdminPayment[] | null>(null);
  const [hasMore, setHasMore] = useState(false);
  const [loading, setLoading] = useState(true);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  const [reviewing, setReviewing] = useState<AdminPayment | null>(null);
  const [saving, setSaving] = useState(false);
  const [reviewError, setReviewError] = useState<string | null>(null);
  const [form] = Form.useForm<{ note: string }>();
  const [refunding, setRefunding] = useState<AdminPayment | null>(null);
  const [refundSaving, setRefundSaving] = useState(false);
  const [refundError, setRefundError] = useState<string | null>(null);
  const [refundForm] = Form.useForm<{ reason: string }>();
  // Phones get one card per payment (every column readable without scrolling sideways).
  const wide = Grid.useBreakpoint().md ?? true;

  useEffect(() => {
    const ctrl = new AbortController();
    setLoading(true);
    paymentsReviewApi
      .list({ status, flagged: flagged === 'flagged' ? true : undefined, reviewed: reviewed === 'any' ? undefined : reviewed === 'done', limit: PAGE, offset }, ctrl.signal)
      .then((r) => {
        setItems(r.items);
        setHasMore(r.hasMore);
        setLoadError(null);
      })
      .catch((e) => {
        if (!ctrl.signal.aborted) setLoadError(errorMessage(e, 'Não foi possível carregar os pagamentos.'));
      })
      .finally(() => {
        if (!ctrl.signal.aborted) setLoading(false);
      });
    return () => ctrl.abort();
  }, [status, flagged, reviewed, offset, reload]);

  const refresh = useCallback(() => setReload((n) => n + 1), []);

  function openReview(p: AdminPayment) {
    setReviewError(null);
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
    setSaving(true);
    setReviewError(null);
    try {
      await paymentsReviewApi.review(reviewing.id, note.trim());
      void message.success(`Pagamento #${reviewing.id} marcado como revisado.`);
      setReviewing(null);
      refresh();
    } catch (e) {
      setReviewError(errorMessage(e, 'Não foi possível marcar como revisado.'));
    } finally {
      setSaving(false);
    }
  }

  function openRefund(p: AdminPayment) {
    setRefundError(null);
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
    setRefundSaving(true);
    setRefundError(null);
    try {
      const r = await paymentsReviewApi.refund(refunding.id, reason.trim());
      if (r.refund.pending) void message.info(`Reembolso do pagamento #${r.id} pedido; o status muda quando o provedor confirmar.`);
      else if (r.refund.already) void message.info(`O pagamento #${r.id} já estava ${STATUS_LABELS[r.status]?.label.toLowerCase() ?? r.status}: nada mudou.`);
      else void message.success(`Pagamento #${r.id} reembolsado.`);
      setRefunding(null);
      refresh();
    } catch (e) {
      setRefundError(errorMessage(e, 'Não foi possível reembolsar.'));
    } finally {
      setRefundSaving(false);
    }
  }

  function approve(p: AdminPayment) {
    modal.confirm({
      title: `Aprovar o pagamento #${p.id} no sandbox?`,
      content: `Simula a confirmação do banco para ${formatBRL(p.amount_cents)} e entrega o que foi comprado.`,
      okText: 'Aprovar',
      cancelText: 'Cancelar',
      onOk: async () => {
        try {
          const r = await paymentsReviewApi.approve(p.id);
          void message.success(`Pagamento #${p.id}: ${STATUS_LABELS[r.status]?.label ?? r.status}.`);
          refresh();
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
          <Typography.Text type="secondary">{KIND_LABELS[p.kind] ?? p.kind}</Typography.Text>
        </div>
      ),
    },
    {
      title: 'Status',
      dataIndex: 'status',
      key: 'status',
      render: (v: string, p) => (
        <Flex gap={4} wrap>
          <Tag color={STATUS_LABELS[v]?.color}>{STATUS_LABELS[v]?.label ?? v}</Tag>
          {p.fulfilment_on_hold && <Tag color="error">Entrega retida</Tag>}
        </Flex>
      ),
    },
    { title: 'Motivo', dataIndex: 'review_reason', key: 'reason', render: (v: string | null) => reasonText(v) },
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
            <Button size="small" onClick={() => approve(p)}>
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
      <Card className="admin-card">{flagged === 'flagged' && reviewed === 'todo' ? 'Nenhum pagamento para revisar.' : 'Nenhum pagamento encontrado.'}</Card>
    ) : (
      <ul className="admin-cards" aria-label="Pagamentos">
        {list.map((p, i) => (
          <li key={p.id}>
            <Card
              size="small"
              className="admin-card"
              title={`#${p.id} · ${formatBRL(p.amount_cents)}`}
              extra={<Tag color={STATUS_LABELS[p.status]?.color}>{STATUS_LABELS[p.status]?.label ?? p.status}</Tag>}
            >
              <dl className="admin-card-fields">
                <dt>Cliente</dt>
                <dd>
                  {p.user_name ?? `#${p.user_id}`} <Typography.Text type="secondary">{p.user_email}</Typography.Text>
                </dd>
                <dt>Data</dt>
                <dd>
                  {dateTime(p.created_at)} · {KIND_LABELS[p.kind] ?? p.kind}
                </dd>
                <dt>Motivo</dt>
                <dd>
                  {reasonText(p.review_reason)}
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
        Aprovações depois do prazo, estornos, chargebacks e valores diferentes do cobrado ficam marcados aqui até alguém revisar.
      </Typography.Paragraph>
      <Flex gap={8} wrap className="admin-toolbar">
        <Select<string>
          aria-label="Status"
          value={status}
          onChange={(v) => {
            setOffset(0);
            setStatus(v);
          }}
          className="admin-filter"
          options={[{ value: '', label: 'Todos os status' }, ...Object.entries(STATUS_LABELS).map(([value, s]) => ({ value, label: s.label }))]}
        />
        <Select<Flagged>
          aria-label="Marcação"
          value={flagged}
          onChange={(v) => {
            setOffset(0);
            setFlagged(v);
            if (v === 'all') setReviewed('any');
          }}
          className="admin-filter"
          options={[
            { value: 'flagged', label: 'Marcados para análise' },
            { value: 'all', label: 'Todos os pagamentos' },
          ]}
        />
        <Select<Reviewed>
          aria-label="Revisão"
          value={reviewed}
          onChange={(v) => {
            setOffset(0);
            setReviewed(v);
          }}
          className="admin-filter"
          options={[
            { value: 'todo', label: 'A revisar' },
            { value: 'done', label: 'Revisados' },
            { value: 'any', label: 'Revisados ou não' },
          ]}
        />
        <Button icon={<ReloadOutlined />} onClick={refresh}>
          Atualizar
        </Button>
      </Flex>
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
        onOffset={setOffset}
        table={
          <Table<AdminPayment>
            rowKey="id"
            columns={columns}
            dataSource={items ?? []}
            loading={loading}
            pagination={false}
            scroll={{ x: 880 }}
            size="middle"
            locale={{ emptyText: flagged === 'flagged' && reviewed === 'todo' ? 'Nenhum pagamento para revisar.' : 'Nenhum pagamento encontrado.' }}
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
        {reviewing?.review_reason && <Typography.Paragraph>Motivo: {reasonText(reviewing.review_reason)}</Typography.Paragraph>}
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
            {formatBRL(refunding.amount_cents)} voltam para {refunding.user_name ?? `o cliente #${refunding.user_id}`} pelo provedor de pagamento. Os vouchers não usados
            desta compra são revogados, os números que ela comprou são anulados (liberados se o sorteio estiver aberto), o cashback é estornado e o acesso ao e-book
            termina. Não dá para desfazer.
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
