import { useEffect, useState } from 'react';
import { Alert, Button, Card, Grid, List, Pagination, Skeleton, Table, Tag, Tooltip, Typography, type TableColumnsType } from 'antd';
import { ReloadOutlined } from '@ant-design/icons';
import { errorMessage, request } from '../../api/client';
import type { AutopayRunStatus, AutopayRunView, AutopayRunsPage } from '../../api/types';
import { AUTOPAY_RUN_STATUS as STATUS } from '../../statusLabels';
import { adminKeys, useKeptQuery } from './shared/queries';

/**
 * The draw view's "Compra automática" section: one row per autopay run of the draw
 * (GET /api/admin/autopay/runs?draw_id=), paginated on the server; the dashboard's draws table
 * opens it per draw: `<AutopayRunsSection drawId={id} />`.
 */
const PAGE_SIZE = 20;
const LOAD_FAILED = 'Não foi possível carregar as compras automáticas deste sorteio.';

const brl = (cents: number | null) => (cents == null ? '—' : (cents / 100).toLocaleString('pt-BR', { style: 'currency', currency: 'BRL' }));
const pad2 = (n: number) => String(n).padStart(2, '0');
const when = (iso: string | null) =>
  iso
    ? new Date(iso).toLocaleString('pt-BR', {
        timeZone: 'America/Sao_Paulo',
        day: '2-digit',
        month: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      })
    : '—';

const columns: TableColumnsType<AutopayRunView> = [
  {
    title: 'CLIENTE',
    key: 'user',
    render: (_, r) => (
      <div>
        <div>{r.user_name}</div>
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          {r.user_email}
        </Typography.Text>
      </div>
    ),
  },
  {
    title: 'NÚMEROS',
    key: 'numbers',
    render: (_, r) => (
      <div>
        <span>{r.numbers.length ? r.numbers.map(pad2).join(' ') : '—'}</span>
        {r.skipped_numbers.length > 0 && (
          <div>
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              fora: {r.skipped_numbers.map(pad2).join(' ')}
            </Typography.Text>
          </div>
        )}
      </div>
    ),
  },
  {
    title: 'STATUS',
    dataIndex: 'status',
    key: 'status',
    render: (s: AutopayRunStatus) => <StatusTag status={s} />,
  },
  { title: 'VALOR', dataIndex: 'amount_cents', key: 'amount', align: 'right', render: (c: number | null) => brl(c) },
  { title: 'TENTATIVAS', dataIndex: 'attempts', key: 'attempts', align: 'right' },
  { title: 'PAGAMENTO', dataIndex: 'payment_id', key: 'payment', render: (id: number | null) => (id ? `#${id}` : '—') },
  {
    title: 'PROVEDOR',
    key: 'provider',
    render: (_, r) => (
      <div style={{ maxWidth: 280 }}>
        <div>{r.provider_status ? `${r.provider ?? ''} · ${r.provider_status}` : (r.provider ?? '—')}</div>
        {r.error && (
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {r.error}
          </Typography.Text>
        )}
        {r.status === 'held' && r.next_attempt_at && (
          <div>
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              nova tentativa: {when(r.next_attempt_at)}
            </Typography.Text>
          </div>
        )}
      </div>
    ),
  },
  { title: 'ATUALIZADO', dataIndex: 'updated_at', key: 'updated', render: (iso: string) => when(iso) },
];

function StatusTag({ status }: { status: AutopayRunStatus }) {
  return (
    <Tooltip title={STATUS[status]?.hint}>
      <Tag color={STATUS[status]?.color}>{STATUS[status]?.label ?? status}</Tag>
    </Tooltip>
  );
}

/** Phones: one compact block per run instead of a wide table. */
function RunItem({ r }: { r: AutopayRunView }) {
  return (
    <List.Item style={{ display: 'block' }}>
      <div style={{ display: 'flex', justifyContent: 'space-between', gap: 8, alignItems: 'baseline' }}>
        <strong style={{ overflowWrap: 'anywhere' }}>{r.user_name}</strong>
        <StatusTag status={r.status} />
      </div>
      <Typography.Text type="secondary" style={{ fontSize: 12, overflowWrap: 'anywhere' }}>
        {r.user_email}
      </Typography.Text>
      <div style={{ marginTop: 4 }}>
        Números: {r.numbers.length ? r.numbers.map(pad2).join(' ') : '—'}
        {r.skipped_numbers.length > 0 && (
          <Typography.Text type="secondary"> (fora: {r.skipped_numbers.map(pad2).join(' ')})</Typography.Text>
        )}
      </div>
      <div>
        {brl(r.amount_cents)} · {r.attempts} {r.attempts === 1 ? 'tentativa' : 'tentativas'}
        {r.payment_id ? ` · pagamento #${r.payment_id}` : ''}
      </div>
      {r.error && (
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          {r.error}
        </Typography.Text>
      )}
      <div>
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          Atualizado em {when(r.updated_at)}
        </Typography.Text>
      </div>
    </List.Item>
  );
}

export interface AutopayRunsSectionProps {
  drawId: number;
}

export default function AutopayRunsSection({ drawId }: AutopayRunsSectionProps) {
  const [page, setPage] = useState(1);
  const screens = Grid.useBreakpoint();
  const phone = !screens.md;

  useEffect(() => setPage(1), [drawId]);
  const q = useKeptQuery([...adminKeys.autopayRuns(drawId), page], (signal) =>
    request<AutopayRunsPage>('GET', '/api/admin/autopay/runs', {
      query: { draw_id: drawId, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE },
      signal,
    }),
  );
  const { data, loading } = q;
  const error = q.error && !q.isFetching ? errorMessage(q.error, LOAD_FAILED) : null;
  const refresh = () => void q.refetch();
  // Without a total from the server: one more page exists while hasMore says so.
  const total = data ? (page - 1) * PAGE_SIZE + data.items.length + (data.hasMore ? 1 : 0) : 0;

  return (
    <Card
      title={phone ? 'Compra automática' : 'Compra automática (números cativos)'}
      size="small"
      extra={
        <Button
          size="small"
          icon={<ReloadOutlined />}
          onClick={refresh}
          loading={loading && !!data}
          aria-label="Atualizar compras automáticas"
        >
          Atualizar
        </Button>
      }
    >
      {error && (
        <Alert
          type="error"
          showIcon
          title={error}
          style={{ marginBottom: 12 }}
          action={
            <Button size="small" onClick={refresh}>
              Tentar de novo
            </Button>
          }
        />
      )}
      {!data && loading ? (
        <Skeleton active paragraph={{ rows: 4 }} />
      ) : phone ? (
        <>
          <List<AutopayRunView>
            dataSource={data?.items ?? []}
            loading={loading}
            locale={{ emptyText: 'Nenhuma compra automática neste sorteio.' }}
            renderItem={(r) => <RunItem r={r} />}
          />
          <Pagination
            size="small"
            current={page}
            pageSize={PAGE_SIZE}
            total={total}
            hideOnSinglePage
            onChange={setPage}
            style={{ marginTop: 8, textAlign: 'center' }}
          />
        </>
      ) : (
        <Table<AutopayRunView>
          rowKey="id"
          size="small"
          columns={columns}
          dataSource={data?.items ?? []}
          loading={loading}
          scroll={{ x: 900 }}
          locale={{ emptyText: 'Nenhuma compra automática neste sorteio.' }}
          pagination={{ current: page, pageSize: PAGE_SIZE, total, showSizeChanger: false, hideOnSinglePage: true, onChange: setPage }}
        />
      )}
    </Card>
  );
}
