import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Grid, Input, Skeleton, Table, Tag, type TableColumnsType } from 'antd';
import { Link } from 'react-router-dom';
import { RecordResultButton } from './RecordResultButton';
import { ResultAlertNotice } from './ResultAlertNotice';
import { errorMessage } from '../../api/client';
import type { HeldDraw, Participant } from '../../api/types';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { formatDate, formatPhone, pad2 } from '../account/format';
import { historyApi, pad3 } from './historyApi';
import { LoadMoreList } from './shared/LoadMoreList';
import { adminKeys, useLoadMoreList, useRestart } from './shared/queries';
import { DRAW_STATUS, ENTRY_PAYMENT_KIND, ENTRY_STATUS } from '../../statusLabels';
import './admin-history.css';

const LOAD_FAILED = 'Não foi possível carregar os sorteios.';

/** The participants of one draw, loaded when its row is expanded (account spec §2 texts). */
function Participants({ drawId }: { drawId: number }) {
  // Mounted when the row is expanded: loads then (and again on 'Tentar de novo').
  const q = useQuery({ queryKey: adminKeys.participants(drawId), queryFn: ({ signal }) => historyApi.participants(drawId, signal) });
  const retry = useRestart(adminKeys.participants(drawId));
  const state: { items: Participant[] | null; error: string | null } = {
    items: q.data?.items ?? null,
    error: q.error && !q.isFetching ? errorMessage(q.error, 'falha de comunicação com o servidor.') : null,
  };
  let content;
  if (state.error)
    content = (
      <Alert
        type="error"
        showIcon
        title={`Erro ao carregar participantes: ${state.error}`}
        action={
          <Button size="small" onClick={retry}>
            Tentar de novo
          </Button>
        }
      />
    );
  else if (!state.items)
    content = (
      <div role="status" aria-label="Carregando participantes…">
        <span className="adm-muted">Carregando participantes…</span>
        <Skeleton active paragraph={{ rows: 2 }} title={false} />
      </div>
    );
  else if (!state.items.length) content = <p className="adm-muted">Nenhum participante encontrado.</p>;
  else
    content = (
      <div>
        {state.items.map((p) => (
          <div key={p.user_id} className="adm-participant">
            <div className="adm-participant-head">
              <strong>{p.name}</strong>
              <span>
                {p.quantity} {p.quantity === 1 ? 'número' : 'números'}
              </span>
              <span className="adm-muted">{p.email}</span>
              {p.phone && <span className="adm-muted">{formatPhone(p.phone)}</span>}
              {p.payment_kinds.map((k) => (
                <Tag key={k}>{ENTRY_PAYMENT_KIND[k] ?? k}</Tag>
              ))}
            </div>
            <ul className="adm-numbers" aria-label={`Números de ${p.name}`}>
              {p.entries.map((e) => (
                <li
                  key={`${e.number}-${e.status}-${e.payment_id ?? ''}`}
                  className={e.status === 'approved' || e.status === 'pending' ? '' : 'adm-n-off'}
                  title={ENTRY_STATUS[e.status]}
                >
                  {pad2(e.number)}
                  {e.status !== 'approved' && <span className="adm-muted"> · {ENTRY_STATUS[e.status]}</span>}
                </li>
              ))}
            </ul>
          </div>
        ))}
      </div>
    );
  return <div>{content}</div>;
}

/** The columns; `reload` refreshes the list after a result is recorded on a closed draw. */
const columnsFor = (reload: () => void): TableColumnsType<HeldDraw> => [
  {
    title: 'Nº SORTEIO',
    dataIndex: 'id',
    key: 'id',
    render: (id: number, d) => (
      <span>
        <strong>{pad3(id)}</strong>
        <div className="adm-muted">{d.title}</div>
      </span>
    ),
  },
  { title: 'DATA ABERTURA', dataIndex: 'opened_at', key: 'opened_at', render: formatDate, responsive: ['md'] },
  { title: 'DATA FECHAMENTO', dataIndex: 'closed_at', key: 'closed_at', render: formatDate, responsive: ['md'] },
  { title: 'DIAS ABERTO', dataIndex: 'days_open', key: 'days_open', responsive: ['lg'] },
  {
    title: 'DATA REALIZAÇÃO',
    dataIndex: 'realized_at',
    key: 'realized_at',
    render: (v: string | null, d) => (v ? formatDate(v) : <Tag className="adm-tag-wait">{DRAW_STATUS[d.status]}</Tag>),
  },
  {
    title: 'USUÁRIO VENCEDOR',
    key: 'winner',
    render: (_: unknown, d) =>
      d.status !== 'sorteado' ? (
        // The dialog renders in a portal, but React events still bubble to the row: stop them
        // here so typing in it never expands or collapses the row. Not a control itself.
        // eslint-disable-next-line jsx-a11y/click-events-have-key-events, jsx-a11y/no-static-element-interactions
        <span onClick={(e) => e.stopPropagation()}>
          <span className="adm-muted">Aguardando resultado</span>
          {d.status === 'closed' && d.result_alert && <ResultAlertNotice alert={d.result_alert} />}
          {d.status === 'closed' && (
            <div>
              <RecordResultButton draw={{ id: d.id, title: d.title, status: d.status }} onDone={reload} />
            </div>
          )}
        </span>
      ) : (
        <span>
          {d.winner_name ? (
            <>
              {d.winner_name} <span className="adm-muted">({pad2(d.winner_number ?? 0)})</span>
            </>
          ) : (
            <span className="adm-muted">Sem vencedor</span>
          )}
          <div>
            <Link to={`/resultado/${d.id}`} onClick={(e) => e.stopPropagation()}>
              Ver resultado{d.contest_number ? ` (concurso ${d.contest_number})` : ''}
            </Link>
          </div>
        </span>
      ),
  },
];

export default function HeldRafflesPage() {
  useDocumentTitle('Sorteios realizados');
  const [search, setSearch] = useState('');
  const list = useLoadMoreList(adminKeys.heldDraws, historyApi.history, search, LOAD_FAILED);
  // From md on, a fixed width lets the long headers ('DATA FECHAMENTO') wrap, so the table fits
  // the console's content beside the menu; on phones the three columns share the screen's width.
  const wide = Grid.useBreakpoint().md ?? true;

  return (
    <div className="page adm-page">
      <h1>Sorteios realizados</h1>
      <p className="adm-sub">Sorteios fechados e sorteados. Toque numa linha para ver os participantes.</p>
      <div className="adm-toolbar">
        <Input.Search
          allowClear
          placeholder="Buscar por título, nº do sorteio ou concurso"
          aria-label="Buscar sorteios"
          enterButton="Buscar"
          maxLength={100}
          onSearch={(v) => setSearch(v.trim())}
        />
      </div>
      <LoadMoreList
        list={list}
        table={
          <Table<HeldDraw>
            rowKey="id"
            columns={columnsFor(list.reload)}
            dataSource={list.items}
            pagination={false}
            size="middle"
            scroll={wide ? { x: 860 } : undefined}
            locale={{ emptyText: list.error ? 'Não foi possível carregar.' : 'Nenhum sorteio encontrado.' }}
            expandable={{
              expandedRowRender: (d) => <Participants drawId={d.id} />,
              expandRowByClick: true,
            }}
          />
        }
      />
    </div>
  );
}
