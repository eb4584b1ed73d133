import { useState, type MouseEvent } from 'react';
import { Alert, App, Button, Card, Grid, Skeleton, Table, Tag, type TableColumnsType } from 'antd';
import { DownloadOutlined, FormOutlined, QrcodeOutlined, RightOutlined } from '@ant-design/icons';
import { Link, useNavigate } from 'react-router-dom';
import { errorMessage } from '../../api/client';
import { EmptyList } from '../../components/EmptyList';
import { openEbook } from './downloads';
import { formatDate, pad2 } from './format';
import { drawLabel, rowTarget, type ParticipationRow } from './participations';
import { ResultTag } from './ResultTag';
import type { ParticipationsState } from './useParticipations';

export const EMPTY_TEXT = 'Nenhuma participação encontrada.';
const LOAD_FAILED = 'Não foi possível carregar suas participações.';

function PaymentTag({ row }: { row: ParticipationRow }) {
  return <Tag className={`pay-badge ${row.payment === 'PAGO' ? 'pay-paid' : 'pay-pending'}`}>{row.payment}</Tag>;
}

/** "2 números para escolher": vouchers of this draw not used yet. */
export const toChooseText = (n: number) => `${n} ${n === 1 ? 'número para escolher' : 'números para escolher'}`;

function Numbers({ row }: { row: ParticipationRow }) {
  const pending = new Set(row.pendingNumbers);
  return (
    <>
      {row.numbers.length > 0 && (
        <ul className="participation-numbers" aria-label="Números">
          {row.numbers.map((n) => (
            <li key={n} className={pending.has(n) ? 'pn pn-pending' : 'pn'} title={pending.has(n) ? 'Aguardando pagamento' : 'Pago'}>
              {pad2(n)}
            </li>
          ))}
        </ul>
      )}
      {row.remaining > 0 && <span className="muted voucher-note">{toChooseText(row.remaining)}</span>}
      {row.numbers.length === 0 && !(row.remaining > 0) && <span className="muted">—</span>}
    </>
  );
}

/** A paid purchase of the draw's e-book (or a paid number of it) can fetch the e-book. */
const hasEbook = (row: ParticipationRow) => row.ebook;

interface ActionsProps {
  row: ParticipationRow;
  generating: string | null;
  onPay(row: ParticipationRow): void;
}

const stop = (e: MouseEvent) => e.stopPropagation();

function EbookAction({ row }: { row: ParticipationRow }) {
  const { message } = App.useApp();
  const [busy, setBusy] = useState(false);
  if (!hasEbook(row))
    return (
      <span className="muted" aria-label="Sem e-book">
        —
      </span>
    );
  return (
    <Button
      size="small"
      icon={<DownloadOutlined />}
      loading={busy}
      onClick={(e) => {
        stop(e);
        setBusy(true);
        void openEbook(row.drawId)
          .then((failure) => {
            if (failure) message.error(failure);
          })
          .finally(() => setBusy(false));
      }}
    >
      Baixar e-book
    </Button>
  );
}

function ChooseAction({ row }: { row: ParticipationRow }) {
  const navigate = useNavigate();
  if (!(row.remaining > 0)) return <span className="muted">—</span>;
  return (
    <Button
      size="small"
      type={row.empty ? 'primary' : 'default'}
      icon={<FormOutlined />}
      onClick={(e) => {
        stop(e);
        navigate('/numeros', { state: { drawId: row.drawId } });
      }}
    >
      Escolher
    </Button>
  );
}

function PayAction({ row, generating, onPay }: ActionsProps) {
  if (row.status !== 'pending' || row.empty || row.reservationId == null) return <span className="muted">—</span>;
  const mine = generating === row.key;
  return (
    <Button
      size="small"
      type="primary"
      icon={<QrcodeOutlined />}
      loading={mine}
      disabled={!!generating && !mine}
      onClick={(e) => {
        stop(e);
        onPay(row);
      }}
    >
      {mine ? 'Gerando PIX…' : 'Gerar PIX'}
    </Button>
  );
}

/** The draw's name; a link (keyboard users) when the row leads somewhere, besides the row click. */
function drawTitle(row: ParticipationRow) {
  const to = rowTarget(row);
  return (
    <span className="participation-draw">
      {to ? (
        <Link to={to} onClick={(e) => e.stopPropagation()} className="participation-draw-link">
          {drawLabel(row.drawId)}
        </Link>
      ) : (
        <strong>{drawLabel(row.drawId)}</strong>
      )}
      {row.draw?.title && <span className="muted participation-draw-title">{row.draw.title}</span>}
    </span>
  );
}

/** Participations as a table (desktops) or as cards (phones and tablets). */
export function Participations({
  data,
  generating,
  onPay,
}: {
  data: ParticipationsState;
  generating: string | null;
  onPay(row: ParticipationRow): void;
}) {
  const navigate = useNavigate();
  const screens = Grid.useBreakpoint();
  // The eight columns need a desktop's width; phones and tablets get cards.
  const wide = !!screens.lg;

  const open = (row: ParticipationRow) => {
    const to = rowTarget(row);
    if (to) navigate(to);
  };

  const columns: TableColumnsType<ParticipationRow> = [
    { key: 'draw', title: 'SORTEIO', render: (_, r) => drawTitle(r) },
    { key: 'numbers', title: 'NÚMERO', render: (_, r) => <Numbers row={r} /> },
    { key: 'date', title: 'DIA', render: (_, r) => formatDate(r.date) || '—' },
    { key: 'payment', title: 'PAGAMENTO', render: (_, r) => <PaymentTag row={r} /> },
    { key: 'status', title: 'STATUS', render: (_, r) => <ResultTag badge={r.badge} /> },
    { key: 'ebook', title: 'E-BOOK', render: (_, r) => <EbookAction row={r} /> },
    { key: 'choose', title: 'ESCOLHER', render: (_, r) => <ChooseAction row={r} /> },
    { key: 'pay', title: 'PAGAR', render: (_, r) => <PayAction row={r} generating={generating} onPay={onPay} /> },
  ];

  let body;
  if (data.loading && !data.rows.length) {
    body = (
      <div role="status" aria-label="Carregando participações">
        <Skeleton active paragraph={{ rows: 4 }} />
      </div>
    );
  } else if (!data.rows.length) {
    body = (
      <EmptyList failed={!!data.error} onRetry={data.reload} emptyText={EMPTY_TEXT} failedText={errorMessage(data.error, LOAD_FAILED)} />
    );
  } else if (wide) {
    body = (
      <Table<ParticipationRow>
        className="participations-table"
        size="small"
        rowKey="key"
        columns={columns}
        dataSource={data.rows}
        pagination={data.rows.length > 10 ? { pageSize: 10, showSizeChanger: false } : false}
        scroll={{ x: 'max-content' }}
        locale={{ emptyText: EMPTY_TEXT }}
        onRow={(r) => {
          const to = rowTarget(r);
          // Mouse and touch: the whole row; keyboard: the draw link in the first cell.
          return to ? { onClick: () => open(r), className: 'row-link' } : {};
        }}
      />
    );
  } else {
    body = (
      <ul className="participation-cards" aria-label="Participações">
        {data.rows.map((r) => {
          const to = rowTarget(r);
          return (
            <li key={r.key}>
              {/* Mouse and touch: the whole card; keyboard: the draw link in its header (drawTitle). */}
              {/* eslint-disable-next-line jsx-a11y/click-events-have-key-events, jsx-a11y/no-noninteractive-element-interactions */}
              <article
                className={`participation-card${to ? ' row-link' : ''}`}
                aria-label={drawLabel(r.drawId)}
                onClick={to ? () => open(r) : undefined}
              >
                <header className="participation-card-head">
                  {drawTitle(r)}
                  <ResultTag badge={r.badge} />
                  {to && <RightOutlined className="participation-card-go" aria-hidden />}
                </header>
                <dl className="participation-card-fields">
                  <div>
                    <dt>NÚMERO</dt>
                    <dd>
                      <Numbers row={r} />
                    </dd>
                  </div>
                  <div>
                    <dt>DIA</dt>
                    <dd>{formatDate(r.date) || '—'}</dd>
                  </div>
                  <div>
                    <dt>PAGAMENTO</dt>
                    <dd>
                      <PaymentTag row={r} />
                    </dd>
                  </div>
                </dl>
                <div className="participation-card-actions">
                  {hasEbook(r) && <EbookAction row={r} />}
                  {r.remaining > 0 && <ChooseAction row={r} />}
                  {r.status === 'pending' && !r.empty && r.reservationId != null && (
                    <PayAction row={r} generating={generating} onPay={onPay} />
                  )}
                </div>
              </article>
            </li>
          );
        })}
      </ul>
    );
  }

  return (
    <Card className={`account-card${wide && data.rows.length ? ' account-card--table' : ''}`} title="Minhas participações">
      {data.vouchersUnknown && (
        <Alert
          className="participations-alert"
          type="warning"
          showIcon
          title="Não foi possível verificar seus vouchers disponíveis agora."
          action={
            <Button size="small" onClick={data.reload}>
              Tentar de novo
            </Button>
          }
        />
      )}
      {!!data.error && data.rows.length > 0 && (
        <Alert
          className="participations-alert"
          type="error"
          showIcon
          title={errorMessage(data.error, LOAD_FAILED)}
          action={
            <Button size="small" onClick={data.reload}>
              Tentar de novo
            </Button>
          }
        />
      )}
      {body}
    </Card>
  );
}
