import { Alert, Button, Empty, Grid, Skeleton, Table, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { ReloadOutlined } from '@ant-design/icons';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import type { ActiveClient } from '../../api/types';
import { formatBRL } from '../../components/product/format';
import { formatDate } from '../account/format';
import { usersApi } from './users/usersApi';
import { adminKeys, useLoadMoreList } from './shared/queries';

const loadPage = (q: { offset: number }, signal: AbortSignal) => usersApi.activeClients(q.offset, signal);
import './users/admin-users.css';

/**
 * 'Clientes com saldo ativo' (/admin/clientes, account spec §2): customers whose coupon balance
 * is positive by the same rule as their own coupon card (validity after the last purchase).
 */
const columns: ColumnsType<ActiveClient> = [
  { title: 'NOME', dataIndex: 'name', className: 'cell-wrap', render: (n: string, c) => <span title={c.email}>{n}</span> },
  { title: 'DATA DE CADASTRO', dataIndex: 'created_at', render: (d: string) => formatDate(d), width: 112 },
  { title: 'COMPRAS', dataIndex: 'purchases_count', width: 104, align: 'right' },
  { title: 'VALOR', dataIndex: 'coupon_value_cents', render: (c: number) => formatBRL(c), width: 104, align: 'right' },
  { title: 'ÚLTIMA COMPRA', dataIndex: 'last_buy', render: (d: string | null) => (d ? formatDate(d) : '—'), width: 112 },
  { title: 'VENCEDOR (VEZES)', dataIndex: 'wins', width: 104, align: 'right' },
  {
    title: 'CUPOM',
    dataIndex: 'coupon',
    width: 150,
    render: (c: string | null) => <span className="admin-users__nowrap">{c ?? '—'}</span>,
  },
  {
    title: 'DIAS PARA EXPIRAR',
    dataIndex: 'days_to_expire',
    width: 104,
    align: 'right',
    render: (d: number | null, c) =>
      d == null ? (
        <span title="Sem compra paga: o saldo não expira">—</span>
      ) : (
        <span title={`Válido até ${formatDate(c.valid_until)}`}>{d}</span>
      ),
  },
];

/** Phones: one card per customer, the balance beside the name, the other columns below. */
function ClientCards({ items }: { items: ActiveClient[] }) {
  if (!items.length) return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="Nenhum cliente com saldo ativo." />;
  return (
    <ul className="active-clients__cards">
      {items.map((c) => (
        <li key={c.user_id} className="active-clients__card" aria-label={c.name}>
          <div className="active-clients__card-head">
            <strong>{c.name}</strong>
            <strong className="active-clients__value">{formatBRL(c.coupon_value_cents)}</strong>
          </div>
          <dl>
            <dt>Cadastro</dt>
            <dd>{formatDate(c.created_at)}</dd>
            <dt>Compras</dt>
            <dd>{c.purchases_count}</dd>
            <dt>Última compra</dt>
            <dd>{c.last_buy ? formatDate(c.last_buy) : '—'}</dd>
            <dt>Vencedor (vezes)</dt>
            <dd>{c.wins}</dd>
            <dt>Cupom</dt>
            <dd>{c.coupon ?? '—'}</dd>
            <dt>Dias para expirar</dt>
            <dd>{c.days_to_expire ?? '—'}</dd>
          </dl>
        </li>
      ))}
    </ul>
  );
}

export default function ActiveClientsPage() {
  useDocumentTitle('Clientes com saldo ativo');
  const screens = Grid.useBreakpoint();
  // Pages of 500 (the server's limit for this list), 'Carregar mais' for the next.
  const list = useLoadMoreList(adminKeys.activeClients, loadPage, '', 'Não foi possível carregar os clientes.', 500);
  const { items, hasMore, error, refresh } = list;
  const loading = list.fetching;

  return (
    <div className="page admin-users">
      <div className="admin-users__toolbar">
        <Typography.Title level={1} className="admin-users__title">
          Clientes com saldo ativo
        </Typography.Title>
        <Button icon={<ReloadOutlined />} onClick={refresh}>
          Atualizar
        </Button>
      </div>
      {error && (
        <Alert
          type="error"
          showIcon
          className="admin-users__alert"
          message={error}
          action={
            <Button size="small" onClick={refresh}>
              Tentar de novo
            </Button>
          }
        />
      )}
      {loading && !items.length ? (
        <Skeleton active paragraph={{ rows: 6 }} />
      ) : !screens.md ? (
        <ClientCards items={items} />
      ) : (
        <Table<ActiveClient>
          rowKey="user_id"
          size="middle"
          columns={columns}
          dataSource={items}
          loading={loading}
          scroll={{ x: 900 }}
          pagination={{ pageSize: 25, showSizeChanger: false, hideOnSinglePage: true }}
          locale={{ emptyText: 'Nenhum cliente com saldo ativo.' }}
        />
      )}
      {hasMore && (
        <div className="admin-users__more">
          <Button onClick={list.loadMore} loading={loading}>
            Carregar mais
          </Button>
        </div>
      )}
    </div>
  );
}
