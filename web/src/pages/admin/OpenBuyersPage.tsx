import { useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Input, InputNumber, Skeleton, Space, Table, Tabs, type TableColumnsType } from 'antd';
import { useSearchParams } from 'react-router-dom';
import { DownloadOutlined, ReloadOutlined } from '@ant-design/icons';
import { errorMessage } from '../../api/client';
import type { OpenBuyer, OpenBuyerNumber } from '../../api/types';
import { BOARD_NUMBER_STATUS } from '../../statusLabels';
import { useLiveRefresh } from '../../live/useLiveDraws';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { formatBRL } from '../../components/product/format';
import { formatPhone, pad2 } from '../account/format';
import { historyApi, pad3 } from './historyApi';
import { buyersCsv, csvFileName, numbersCsv } from './openBuyersCsv';
import './admin-history.css';
import { RetryAlert } from './shared/RetryAlert';
import { adminKeys, useRestart } from './shared/queries';

const LOAD_FAILED = 'Não foi possível carregar os compradores.';
/** 14 colours cycle for buyers (account spec §2): classes adm-c0 … adm-c13. */
const COLOURS = 14;

/** Lower case without accents, for a search that finds 'José' from 'jose'. */
const fold = (s: string) =>
  s
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase();

/** Does a buyer match the search text (name, e-mail or one of their numbers)? */
function buyerMatches(b: OpenBuyer, q: string): boolean {
  if (!q) return true;
  if (/^\d{1,3}$/.test(q)) return b.numbers.includes(Number(q));
  const f = fold(q);
  return fold(b.name).includes(f) || b.email.toLowerCase().includes(f);
}

function download(text: string, name: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export default function OpenBuyersPage() {
  useDocumentTitle('Sorteio Ativo — Compradores');
  const [search, setSearch] = useState('');
  const [tab, setTab] = useState<'buyers' | 'numbers'>('buyers');
  // ?sorteio=<id>: the buyers of that draw (any product); without it, the main series' open draw.
  const [params, setParams] = useSearchParams();
  const picked = /^\d{1,9}$/.test(params.get('sorteio') ?? '') ? Number(params.get('sorteio')) : null;
  const [pickText, setPickText] = useState<number | null>(picked);
  const pick = (id: number | null) => {
    const next = new URLSearchParams(params);
    if (id && id > 0) next.set('sorteio', String(id));
    else next.delete('sorteio');
    setParams(next);
    setPickText(id && id > 0 ? id : null);
  };

  // The draw picked is the key: another draw loads with the skeleton, as 'Atualizar' does (restart).
  const buyersQ = useQuery({ queryKey: adminKeys.openBuyers(picked), queryFn: ({ signal }) => historyApi.openBuyers(picked, signal) });
  const data = buyersQ.data ?? null;
  const loading = buyersQ.isPending;
  const error = buyersQ.error && !buyersQ.isFetching ? errorMessage(buyersQ.error, LOAD_FAILED) : null;
  const restart = useRestart(adminKeys.openBuyers(picked));
  // Live: each change of the shown draw reloads the lists in place (every 15 s while the stream is down).
  useLiveRefresh(data?.draw_id ? [data.draw_id] : [], () => void buyersQ.refetch());

  // A buyer keeps their colour whatever the search (by their place in the full list).
  const colourOf = useMemo(() => new Map((data?.buyers ?? []).map((b, i) => [b.user_id, `adm-c${i % COLOURS}`])), [data]);
  const q = search.trim();
  const buyers = useMemo(() => (data?.buyers ?? []).filter((b) => buyerMatches(b, q)), [data, q]);
  const shown = useMemo(() => new Set(buyers.map((b) => b.user_id)), [buyers]);
  const numbers = data?.numbers ?? [];
  const numberHit = (n: OpenBuyerNumber) => !q || (n.user_id != null && shown.has(n.user_id)) || (/^\d{1,3}$/.test(q) && n.n === Number(q));

  const exportCsv = () => {
    if (!data) return;
    if (tab === 'buyers') download(buyersCsv(buyers), csvFileName('buyers', data.draw_id));
    else download(numbersCsv(numbers.filter(numberHit)), csvFileName('numbers', data.draw_id));
  };

  const columns: TableColumnsType<OpenBuyer> = [
    {
      title: 'NOME',
      dataIndex: 'name',
      key: 'name',
      render: (name: string, b) => (
        <span>
          <span className={`adm-swatch ${colourOf.get(b.user_id)}`} aria-hidden="true" />
          <strong>{name}</strong>
          <div className="adm-muted adm-break">{b.email}</div>
        </span>
      ),
    },
    { title: 'CELULAR', dataIndex: 'phone', key: 'phone', render: (p: string | null) => formatPhone(p), responsive: ['md'] },
    { title: 'QTD.', dataIndex: 'count', key: 'count' },
    {
      title: 'NÚMEROS',
      dataIndex: 'numbers',
      key: 'numbers',
      render: (ns: number[]) => (
        <ul className="adm-numbers" aria-label="Números">
          {ns.map((n) => (
            <li key={n}>{pad2(n)}</li>
          ))}
        </ul>
      ),
    },
    { title: 'TOTAL', dataIndex: 'total_cents', key: 'total', render: (c: number) => formatBRL(c), responsive: ['sm'] },
  ];

  let body;
  if (loading)
    body = (
      <div role="status" aria-label="Carregando…">
        <Skeleton active paragraph={{ rows: 8 }} />
      </div>
    );
  else if (error) body = <RetryAlert title={error} onRetry={restart} />;
  else if (!data || data.draw_id == null) body = <Alert type="info" showIcon title="Nenhum sorteio aberto no momento." />;
  else
    body = (
      <>
        <div className="adm-summary">
          <Card size="small">
            <div className="adm-stat-label">Sorteio</div>
            <div className="adm-stat-value">Nº {pad3(data.draw_id)}</div>
            {data.title && (
              <div className="adm-stat-note" title={data.title}>
                {data.title}
              </div>
            )}
          </Card>
          <Card size="small">
            <div className="adm-stat-label">Vendidos</div>
            <div className="adm-stat-value">{data.sold}</div>
          </Card>
          <Card size="small">
            <div className="adm-stat-label">Restantes</div>
            <div className="adm-stat-value">{data.remaining}</div>
          </Card>
        </div>
        <div className="adm-toolbar">
          <Input.Search
            allowClear
            placeholder="Buscar por nome, e-mail ou número"
            aria-label="Buscar compradores"
            maxLength={100}
            onChange={(e) => setSearch(e.target.value)}
            onSearch={setSearch}
          />
          <Button icon={<DownloadOutlined />} onClick={exportCsv}>
            Exportar CSV
          </Button>
          <Button icon={<ReloadOutlined />} onClick={restart}>
            Atualizar
          </Button>
        </div>
        <Tabs
          activeKey={tab}
          onChange={(k) => setTab(k as 'buyers' | 'numbers')}
          items={[
            {
              key: 'buyers',
              label: `Por comprador (${buyers.length})`,
              children: (
                <Table<OpenBuyer>
                  rowKey="user_id"
                  columns={columns}
                  dataSource={buyers}
                  pagination={buyers.length > 50 ? { pageSize: 50, showSizeChanger: false } : false}
                  size="middle"
                  locale={{ emptyText: 'Nenhum comprador encontrado.' }}
                />
              ),
            },
            {
              key: 'numbers',
              label: `Por número (00–${pad2(Math.max(0, data.total_numbers - 1))})`,
              children: (
                <ul className="adm-grid" aria-label="Números do sorteio">
                  {numbers.map((n) => {
                    const cls =
                      n.status === 'sold' && n.user_id != null
                        ? colourOf.get(n.user_id)
                        : n.status === 'reserved'
                          ? 'adm-cell-reserved'
                          : '';
                    const label =
                      n.status === 'sold'
                        ? `${n.name} (${n.email})`
                        : n.status === 'reserved'
                          ? BOARD_NUMBER_STATUS.reserved
                          : BOARD_NUMBER_STATUS.available;
                    return (
                      <li
                        key={n.n}
                        className={`adm-cell ${cls} ${numberHit(n) ? '' : 'adm-cell-dim'}`}
                        title={`${pad2(n.n)}: ${label}`}
                        aria-label={`${pad2(n.n)}: ${label}`}
                      >
                        {pad2(n.n)}
                        <span className="adm-cell-who">
                          {n.status === 'sold' ? (n.name ?? '').split(/\s+/)[0] : n.status === 'reserved' ? 'reserv.' : '\u00a0'}
                        </span>
                      </li>
                    );
                  })}
                </ul>
              ),
            },
          ]}
        />
      </>
    );

  return (
    <div className="page adm-page">
      <h1>Sorteio Ativo — Compradores</h1>
      <p className="adm-sub">Só números vendidos (pagamento aprovado) contam como comprados.</p>
      <form
        className="adm-drawpick"
        aria-label="Escolher o sorteio"
        onSubmit={(e) => {
          e.preventDefault();
          pick(pickText);
        }}
      >
        <label htmlFor="open-buyers-draw">{picked ? 'Sorteio escolhido' : 'Sorteio principal aberto ou outro sorteio:'}</label>
        <Space.Compact>
          <InputNumber
            id="open-buyers-draw"
            min={1}
            precision={0}
            placeholder="Nº do sorteio"
            value={pickText}
            onChange={(v) => setPickText(typeof v === 'number' ? v : null)}
            style={{ width: 150 }}
          />
          <Button htmlType="submit">Ver compradores</Button>
        </Space.Compact>
        {picked != null && (
          <Button type="link" onClick={() => pick(null)}>
            Voltar ao sorteio principal
          </Button>
        )}
      </form>
      {body}
    </div>
  );
}
