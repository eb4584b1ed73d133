import { useEffect, useState } from 'react';
import { Alert, App, Button, Card, Skeleton, Tag } from 'antd';
import { DownloadOutlined, TrophyOutlined } from '@ant-design/icons';
import { Link, useParams } from 'react-router-dom';
import { ApiError } from '../../api/client';
import type { BoardNumber } from '../../api/types';
import { NumberGrid } from '../../components/board/NumberGrid';
import { LoadFailedResult } from '../../components/LoadFailedResult';
import { NotFoundResult } from '../../components/NotFoundResult';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { useLiveRefresh } from '../../live/useLiveDraws';
import { PrizeClaimDetails, PrizeSummary } from '../../components/prize/PrizeDetails';
import type { MyDrawBoard } from '../../../../src/shared/api/account';
import { accountApi } from '../account/accountApi';
import { openEbook } from '../account/downloads';
import { pad2 } from '../account/format';
import { ResultTag } from '../account/ResultTag';
import { resultBadge } from '../account/participations';
import '../../components/board/number-grid.css';
import '../account/account.css';

export const PRIZE_KNOWN = 'Prêmio do sorteio foi o item abaixo';

/** 'Detalhes do Sorteio #007'. */
export const detailTitle = (id: number) => `Detalhes do Sorteio #${String(id).padStart(3, '0')}`;

/** Board cell states of GET /api/me/draws/{id}/board in the shared grid's terms (account spec §4). */
export function toBoardNumbers(board: MyDrawBoard['board']): BoardNumber[] {
  return board.map((c) => ({
    n: c.n,
    status: c.state === 'taken' ? 'sold' : c.state === 'reserved' ? 'reserved' : 'available',
    initials: null,
  }));
}

function Legend() {
  const items: Array<[string, string]> = [
    ['number-cell--available number-cell--mine', 'Seu número'],
    ['number-cell--unavailable', 'Indisponível'],
    ['number-cell--reserved', 'Reservado'],
    ['number-cell--available number-cell--winner', 'Vencedor'],
  ];
  return (
    <ul className="number-legend" aria-label="Legenda">
      {items.map(([cls, label]) => (
        <li key={label}>
          <span className={`number-cell ${cls} draw-legend-swatch`} aria-hidden="true" />
          {label}
        </li>
      ))}
    </ul>
  );
}

function DetailSkeleton() {
  return (
    <div className="page page-account" role="status" aria-label="Carregando sorteio">
      <Skeleton active title={{ width: '60%' }} paragraph={{ rows: 1 }} />
      <Skeleton.Node active style={{ width: '100%', maxWidth: 520, height: 320, marginTop: 16 }} />
    </div>
  );
}

/**
 * Draw detail (/me/draw/{id}, account spec §2): status, winning number, the board with the viewer's
 * numbers, 'Seus números', and the prize (amount and item); the winner also sees until when and how
 * to claim it, and the store's contact (issue 26; the server sends that to the winner only).
 */
export default function DrawDetailPage() {
  const { id: rawId } = useParams();
  const id = /^\d{1,10}$/.test(rawId ?? '') ? Number(rawId) : null;
  useDocumentTitle(id ? detailTitle(id) : 'Sorteio');
  const { message } = App.useApp();
  const [data, setData] = useState<MyDrawBoard | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [attempt, setAttempt] = useState(0);
  const [ebookBusy, setEbookBusy] = useState(false);
  // The board follows its draw live (or every 15 s while the stream is down): reloaded in place.
  const [tick, setTick] = useState(0);
  useLiveRefresh(id ? [id] : [], () => setTick((n) => n + 1));

  useEffect(() => {
    if (!id) return;
    const ctrl = new AbortController();
    setError(null);
    accountApi
      .board(id, ctrl.signal)
      .then(setData)
      .catch((err) => {
        if (!ctrl.signal.aborted) setError(err);
      });
    return () => ctrl.abort();
  }, [id, attempt, tick]);

  const notFound = (
    <NotFoundResult
      title="Sorteio não encontrado"
      subTitle="Confira o endereço ou volte à sua área do cliente."
      to="/conta"
      action="Ir para a área do cliente"
    />
  );
  if (!id) return notFound;
  if (error && !data) {
    if (error instanceof ApiError && error.status === 404) return notFound;
    return <LoadFailedResult title="Não foi possível carregar este sorteio." error={error} onRetry={() => setAttempt((a) => a + 1)} />;
  }
  if (!data || data.draw.id !== id) return <DetailSkeleton />;

  const { draw } = data;
  const mine = [...data.my_numbers].sort((a, b) => a - b);
  const winner = draw.winner_number;
  const won = winner != null && mine.includes(winner);
  // The server's result for the caller: decided → contemplado / nao contemplado (numbers here) / sorteado (none).
  const badge = resultBadge(draw.result);
  const total = Math.max(100, ...data.board.map((c) => c.n + 1));

  const prizeCard = (
    <Card className={`account-card prize-card${draw.claim ? ' prize-card--winner' : ''}`} title={draw.claim ? 'Seu prêmio' : 'Prêmio'}>
      {draw.product_name && <p className="prize-text">{PRIZE_KNOWN}</p>}
      <PrizeSummary prize={draw.prize} />
      {draw.claim && <PrizeClaimDetails claim={draw.claim} drawId={draw.id} />}
    </Card>
  );

  const downloadEbook = () => {
    setEbookBusy(true);
    void openEbook(draw.id)
      .then((failure) => {
        if (failure) message.error(failure);
      })
      .finally(() => setEbookBusy(false));
  };

  return (
    <div className="page page-account">
      <header className="draw-detail-head">
        <h1>{detailTitle(draw.id)}</h1>
        {draw.title && <p className="muted draw-detail-sub">{draw.title}</p>}
        <div className="draw-detail-chips">
          <ResultTag badge={badge} />
          {winner != null ? (
            <Tag className="winner-chip" icon={<TrophyOutlined aria-hidden />}>
              Número vencedor: {pad2(winner)}
            </Tag>
          ) : (
            <Tag className="winner-chip winner-chip--pending">
              {draw.status === 'sorteado' ? 'Sem número vencedor' : 'Número vencedor: aguardando sorteio'}
            </Tag>
          )}
          {draw.status === 'sorteado' && (
            <Link className="draw-detail-result-link" to={`/resultado/${draw.id}`}>
              Ver o resultado (concurso da Lotomania)
            </Link>
          )}
        </div>
      </header>

      {/* The winner's next step comes first: the prize, until when and how to claim it (issue 26). */}
      {draw.claim && prizeCard}
      <div className="draw-detail-grid">
        <Card className="account-card" title="Tabela do sorteio">
          <div className="draw-detail-board">
            <NumberGrid
              numbers={toBoardNumbers(data.board)}
              totalNumbers={total}
              mine={mine}
              winner={winner}
              ariaLabel={`Tabela do sorteio #${pad2(draw.id)}`}
            />
            <Legend />
          </div>
        </Card>

        <div className="account-side">
          <Card className="account-card" title="Seus números">
            {mine.length ? (
              <ul className="my-numbers" aria-label="Seus números">
                {mine.map((n) => (
                  <li key={n} className={n === winner ? 'is-winner' : undefined}>
                    {pad2(n)}
                  </li>
                ))}
              </ul>
            ) : (
              <p className="muted">Você não tem números neste sorteio.</p>
            )}
            {won && <Alert type="success" showIcon title="Parabéns! Seu número foi o vencedor." />}
            {mine.length > 0 && (
              <Button icon={<DownloadOutlined />} loading={ebookBusy} onClick={downloadEbook} className="account-export">
                Baixar e-book
              </Button>
            )}
          </Card>

          {!draw.claim && prizeCard}
        </div>
      </div>
    </div>
  );
}
