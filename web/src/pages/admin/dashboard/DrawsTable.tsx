import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Card, Grid, Skeleton, Table, type TableColumnsType } from 'antd';
import {
  CreditCardOutlined,
  DeleteOutlined,
  DownOutlined,
  EditOutlined,
  LeftOutlined,
  PlusOutlined,
  ReloadOutlined,
  RightOutlined,
  UnorderedListOutlined,
} from '@ant-design/icons';
import type { AdminDraw, AdminDrawList } from '../../../api/types';
import { DRAW_STATUS, DRAW_STATUS_WORD } from '../../../statusLabels';
import { adminKeys, useKeptQuery } from '../shared/queries';
import { errorMessage } from '../../../api/client';
import { failureText } from '../shared/failure';
import { formatBRL, pad3 } from '../shared/format';
import { dashboardApi } from './dashboardApi';
import { countOf } from '../../../../../src/shared/plural';
import { DrawDialog } from './DrawDialog';
import AutopayRunsSection from '../AutopayRunsSection';
import { RetryAlert } from '../shared/RetryAlert';
import { ResultAlertNotice } from '../ResultAlertNotice';

const PAGE = 20;

/**
 * The draws table of the dashboard (account spec §2, §4, §8): ID, title, status chip (a click
 * toggles open ⇄ closed after a confirmation when it closes or reopens a draw with sales; a decided
 * draw's chip is not a button), price, numbers, limit per user, e-book, Editar / Excluir (not on a
 * decided draw), and 'Novo'. Pages of 20 with Anterior / Próxima (hasMore).
 * Each draw opens its 'Compras automáticas' (AutopayRunsSection): an expandable row on
 * the table, a toggle on the phone's card; the runs are fetched only once the detail is opened.
 */
export function DrawsTable({ onChanged }: { onChanged(): void }) {
  const { message, modal } = App.useApp();
  const client = useQueryClient();
  const [offset, setOffset] = useState(0);
  // The page is part of the key (adminKeys.draws is under the dashboard's prefix: a change reloads it).
  const pageKey = [...adminKeys.draws, offset];
  const q = useKeptQuery(pageKey, (signal) => dashboardApi.draws(offset, PAGE, signal));
  const rows = q.data?.items ?? null;
  const hasMore = q.data?.hasMore ?? false;
  const loading = q.loading;
  const loadError = q.isFetching ? null : q.error;
  const reload = () => void q.refetch();
  const setStatus = useMutation({
    mutationFn: (a: { id: number; next: 'open' | 'closed' }) => dashboardApi.setStatus(a.id, a.next),
    onSuccess: (after) => {
      // The row shows its new status at once, then the dashboard reloads.
      client.setQueryData<AdminDrawList>(pageKey, (d) => d && { ...d, items: d.items.map((x) => (x.id === after.id ? after : x)) });
      onChanged();
    },
  });
  const busyId = setStatus.isPending ? setStatus.variables.id : null;
  const deleteDraw = useMutation({ mutationFn: (id: number) => dashboardApi.deleteDraw(id) });
  const [dialog, setDialog] = useState<{ open: boolean; draw: AdminDraw | null }>({ open: false, draw: null });
  // Draws whose 'Compras automáticas' detail is open (the table's expanded rows, the phone's cards).
  const [expanded, setExpanded] = useState<number[]>([]);
  const toggleExpanded = (id: number) => setExpanded((list) => (list.includes(id) ? list.filter((x) => x !== id) : [...list, id]));
  // Phones get one card per draw (eight columns do not fit a phone); tablets and desktops the table.
  const wide = Grid.useBreakpoint().md ?? true;

  const toggle = async (d: AdminDraw) => {
    if (d.status === 'sorteado') return;
    const next = d.status === 'open' ? 'closed' : 'open';
    // Closing any open draw asks first (it stops its sales at once, and the main series' draw leaves
    // the store without a current draw); reopening asks when it has sold numbers (account spec §2).
    if (next === 'closed' || d.sold > 0) {
      const sold = d.sold === 0 ? 'nenhum número vendido' : countOf(d.sold, 'número vendido', 'números vendidos');
      modal.confirm({
        title: next === 'closed' ? `Fechar o sorteio #${pad3(d.id)}?` : `Reabrir o sorteio #${pad3(d.id)}?`,
        content: (
          <p>
            <strong>{d.title}</strong> tem <strong>{sold}</strong>.{' '}
            {next === 'closed'
              ? 'Fechado, ele deixa de vender números e fica à espera do resultado da Lotomania.'
              : 'Reaberto, ele volta a vender números.'}
          </p>
        ),
        okText: next === 'closed' ? 'Fechar sorteio' : 'Reabrir sorteio',
        cancelText: 'Cancelar',
        onOk: () => changeStatus(d, next),
      });
      return;
    }
    await changeStatus(d, next);
  };

  const changeStatus = async (d: AdminDraw, next: 'open' | 'closed') => {
    try {
      const after = await setStatus.mutateAsync({ id: d.id, next });
      void message.success(`Sorteio #${pad3(d.id)} ${DRAW_STATUS_WORD[after.status === 'open' ? 'open' : 'closed']}.`);
      // Closing the main series' draw: the store has no current draw until one is opened (a pause).
      if (after.notice) void message.warning({ content: after.notice, duration: 10 });
    } catch (err) {
      void message.error(failureText('Não foi possível alterar o status.', err), 6);
    }
  };

  const remove = (d: AdminDraw) => {
    modal.confirm({
      title: 'Deseja realmente excluir este sorteio?',
      content: `#${pad3(d.id)} · ${d.title}`,
      okText: 'Excluir',
      okButtonProps: { danger: true },
      cancelText: 'Cancelar',
      onOk: async () => {
        try {
          await deleteDraw.mutateAsync(d.id);
          void message.success('Sorteio excluído.');
          if (rows?.length === 1 && offset > 0) setOffset(Math.max(0, offset - PAGE));
          onChanged();
        } catch (err) {
          // e.g. 409: a draw with sales or holds is closed, never erased.
          void message.error(failureText('Não foi possível excluir.', err), 8);
        }
      },
    });
  };

  const chip = (d: AdminDraw) =>
    d.status === 'sorteado' ? (
      <span className="status-chip status-chip--drawn">{DRAW_STATUS.sorteado}</span>
    ) : (
      <button
        type="button"
        className={`status-chip status-chip--${d.status}`}
        onClick={() => void toggle(d)}
        disabled={busyId === d.id}
        aria-busy={busyId === d.id}
        aria-label={`Status ${DRAW_STATUS[d.status]} do sorteio #${pad3(d.id)}: clique para ${d.status === 'open' ? 'fechar' : 'abrir'}`}
        title={d.status === 'open' ? 'Clique para fechar' : 'Clique para abrir'}
      >
        {DRAW_STATUS[d.status]}
      </button>
    );
  const priceOf = (d: AdminDraw) => (
    <span>
      {formatBRL(d.price_cents)}
      {d.ticket_price_cents_override == null && <span className="muted draw-sub">{d.ip_price_cents != null ? 'do e-book' : 'padrão'}</span>}
    </span>
  );
  const numbersOf = (d: AdminDraw) => (
    <span>
      {d.total_numbers}
      <span className="muted draw-sub">{d.sold === 1 ? '1 vendido' : `${d.sold} vendidos`}</span>
    </span>
  );
  const limitOf = (d: AdminDraw) => (d.max_per_user === 0 ? 'sem limite' : d.max_per_user);
  const productOf = (d: AdminDraw) =>
    d.infoproduct_id ? `${d.ip_title ?? 'E-book'} (#${d.infoproduct_id})` : <span className="muted">—</span>;
  const autopayToggle = (d: AdminDraw, compact: boolean) => {
    const open = expanded.includes(d.id);
    return (
      <Button
        size="small"
        icon={open ? <DownOutlined /> : <CreditCardOutlined />}
        onClick={() => toggleExpanded(d.id)}
        aria-expanded={open}
        aria-controls={`draw-autopay-${d.id}`}
        aria-label={`Compras automáticas do sorteio #${pad3(d.id)}`}
        // Icon only in the table: its tooltip says what its name says.
        title={compact ? `Compras automáticas do sorteio #${pad3(d.id)}` : undefined}
      >
        {compact ? null : 'Compras automáticas'}
      </Button>
    );
  };
  const actions = (d: AdminDraw, stacked = false) => (
    <div className={stacked ? 'draw-actions draw-actions--stacked' : 'draw-actions'}>
      <Button
        size="small"
        icon={<EditOutlined />}
        onClick={() => setDialog({ open: true, draw: d })}
        aria-label={`Editar sorteio #${pad3(d.id)}`}
      >
        Editar
      </Button>
      {/* RULES D9: a decided draw is never erased, so it is not offered. */}
      {d.status !== 'sorteado' && (
        <Button size="small" danger icon={<DeleteOutlined />} onClick={() => remove(d)} aria-label={`Excluir sorteio #${pad3(d.id)}`}>
          Excluir
        </Button>
      )}
    </div>
  );

  const columns: TableColumnsType<AdminDraw> = [
    { title: 'ID', dataIndex: 'id', width: 64, render: (id: number) => <span className="draw-id">#{pad3(id)}</span> },
    { title: 'Título', dataIndex: 'title', width: 150, className: 'cell-wrap' },
    { title: 'Status', dataIndex: 'status', width: 108, render: (_: unknown, d) => chip(d) },
    { title: 'Preço', dataIndex: 'price_cents', width: 100, render: (_: unknown, d) => priceOf(d) },
    { title: 'Números', dataIndex: 'numbers_total', width: 92, render: (_: unknown, d) => numbersOf(d) },
    { title: 'Limite por usuário', dataIndex: 'max_per_user', width: 84, render: (_: unknown, d) => limitOf(d) },
    { title: 'Infoproduto', dataIndex: 'infoproduct_id', width: 130, className: 'cell-wrap', render: (_: unknown, d) => productOf(d) },
    { title: 'Ações', key: 'actions', width: 112, render: (_: unknown, d) => actions(d, true) },
  ];
  const tableWidth = columns.reduce((sum, c) => sum + Number(c.width ?? 0), 48);

  return (
    <Card
      className="admin-card draws-card"
      title={
        <span>
          <UnorderedListOutlined aria-hidden /> Sorteios
        </span>
      }
      extra={
        <div className="draws-card-actions">
          <Button
            icon={<ReloadOutlined />}
            onClick={reload}
            loading={loading && rows !== null}
            aria-label="Recarregar a lista de sorteios"
            title="Recarregar a lista de sorteios"
          />
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setDialog({ open: true, draw: null })}>
            Novo
          </Button>
        </div>
      }
    >
      {loading && rows === null ? (
        <div role="status" aria-label="Carregando os sorteios">
          <Skeleton active paragraph={{ rows: 5 }} />
        </div>
      ) : loadError && rows === null ? (
        <RetryAlert title={errorMessage(loadError, 'Não foi possível carregar os sorteios.')} icon onRetry={reload} />
      ) : (
        <>
          {loadError != null && (
            <Alert
              className="draws-error"
              type="error"
              showIcon
              title={errorMessage(loadError, 'Não foi possível atualizar os sorteios.')}
            />
          )}
          {(rows ?? [])
            .filter((d) => d.result_alert)
            .map((d) => (
              <ResultAlertNotice key={`alert-${d.id}`} alert={d.result_alert!} drawLabel={`Sorteio #${pad3(d.id)}`} />
            ))}
          {wide ? (
            <Table<AdminDraw>
              rowKey="id"
              size="middle"
              columns={columns}
              dataSource={rows ?? []}
              loading={loading}
              pagination={false}
              scroll={{ x: tableWidth }}
              onRow={(d) => ({ 'data-draw-id': d.id }) as React.HTMLAttributes<HTMLElement>}
              expandable={{
                expandedRowKeys: expanded,
                columnWidth: 48,
                // Rendered (and so fetched) only when the admin opens it.
                expandedRowRender: (d) => (
                  <div id={`draw-autopay-${d.id}`} className="draw-autopay">
                    <AutopayRunsSection drawId={d.id} />
                  </div>
                ),
                expandIcon: ({ record }) => autopayToggle(record, true),
              }}
              locale={{ emptyText: 'Nenhum sorteio cadastrado.' }}
            />
          ) : rows && rows.length > 0 ? (
            <ul className="draw-cards" aria-label="Sorteios" aria-busy={loading}>
              {rows.map((d) => (
                <li key={d.id} className="draw-card" data-draw-id={d.id}>
                  <div className="draw-card-head">
                    <span className="draw-id">#{pad3(d.id)}</span>
                    <span className="draw-card-title">{d.title}</span>
                    {chip(d)}
                  </div>
                  <dl className="draw-card-facts">
                    <div>
                      <dt>Preço</dt>
                      <dd>{priceOf(d)}</dd>
                    </div>
                    <div>
                      <dt>Números</dt>
                      <dd>{numbersOf(d)}</dd>
                    </div>
                    <div>
                      <dt>Limite por usuário</dt>
                      <dd>{limitOf(d)}</dd>
                    </div>
                    <div>
                      <dt>Infoproduto</dt>
                      <dd>{productOf(d)}</dd>
                    </div>
                  </dl>
                  {actions(d)}
                  <div className="draw-card-autopay">{autopayToggle(d, false)}</div>
                  {expanded.includes(d.id) && (
                    <div id={`draw-autopay-${d.id}`} className="draw-autopay">
                      <AutopayRunsSection drawId={d.id} />
                    </div>
                  )}
                </li>
              ))}
            </ul>
          ) : (
            <p className="draws-empty muted">Nenhum sorteio cadastrado.</p>
          )}
          {(offset > 0 || hasMore) && (
            <div className="draws-pager">
              <Button icon={<LeftOutlined />} disabled={offset === 0 || loading} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
                Anterior
              </Button>
              <span className="muted">
                {offset + 1}–{offset + (rows?.length ?? 0)}
              </span>
              <Button disabled={!hasMore || loading} onClick={() => setOffset(offset + PAGE)}>
                Próxima <RightOutlined />
              </Button>
            </div>
          )}
        </>
      )}
      <DrawDialog
        open={dialog.open}
        draw={dialog.draw}
        onClose={() => setDialog((s) => ({ ...s, open: false }))}
        onSaved={(saved, created) => {
          setDialog((s) => ({ ...s, open: false }));
          void message.success(created ? `Sorteio #${pad3(saved.id)} criado.` : `Sorteio #${pad3(saved.id)} salvo.`);
          if (created) setOffset(0);
          onChanged();
        }}
      />
    </Card>
  );
}
