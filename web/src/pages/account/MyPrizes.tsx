import { useEffect, useState } from 'react';
import { Button, Card, Skeleton } from 'antd';
import { TrophyOutlined } from '@ant-design/icons';
import { Link } from 'react-router-dom';
import { errorMessage } from '../../api/client';
import type { MyPrize } from '../../../../src/shared/prize';
import { PrizeClaimDetails, PrizeSummary } from '../../components/prize/PrizeDetails';
import { accountApi } from './accountApi';
import { pad2 } from './format';

export const PRIZES_FAILED = 'Não foi possível carregar os seus prêmios.';

/**
 * 'Seus prêmios' on /conta (issue 26): each draw the customer won, with the prize, until when and
 * how to claim it, and the store's contact (GET /api/me/prizes). Nothing when they won nothing.
 */
export function MyPrizes() {
  const [items, setItems] = useState<MyPrize[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const ctrl = new AbortController();
    setError(null);
    accountApi
      .prizes(ctrl.signal)
      .then(setItems)
      .catch((err) => {
        if (!ctrl.signal.aborted) setError(errorMessage(err, PRIZES_FAILED));
      });
    return () => ctrl.abort();
  }, [attempt]);

  if (error)
    return (
      <Card className="account-card my-prizes-card" title="Seus prêmios">
        <p role="alert">{error}</p>
        <Button onClick={() => setAttempt((a) => a + 1)}>Tentar de novo</Button>
      </Card>
    );
  if (!items)
    return (
      <div role="status" aria-label="Carregando seus prêmios">
        <Skeleton active title={false} paragraph={{ rows: 1 }} />
      </div>
    );
  if (!items.length) return null;
  return (
    <Card
      className="account-card my-prizes-card"
      title={
        <span>
          <TrophyOutlined aria-hidden /> {items.length === 1 ? 'Seu prêmio' : 'Seus prêmios'}
        </span>
      }
    >
      <ul className="my-prizes">
        {items.map((p) => (
          <li key={p.draw_id}>
            <article aria-label={`Prêmio do Sorteio #${String(p.draw_id).padStart(3, '0')}`}>
              <p className="my-prize-head">
                <strong>Sorteio #{String(p.draw_id).padStart(3, '0')}</strong>
                <span className="muted">Número vencedor {pad2(p.winner_number)}</span>
                <Link to={p.draw_path}>Ver o sorteio</Link>
              </p>
              <PrizeSummary prize={p.prize} />
              <PrizeClaimDetails claim={p.claim} drawId={p.draw_id} />
            </article>
          </li>
        ))}
      </ul>
    </Card>
  );
}
