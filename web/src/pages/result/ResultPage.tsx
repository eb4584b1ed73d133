import { useEffect, useRef, useState } from 'react';
import { Alert, Card, Skeleton } from 'antd';
import { TrophyOutlined } from '@ant-design/icons';
import { Link, useParams } from 'react-router-dom';
import { api, ApiError, errorMessage } from '../../api/client';
import type { DrawResult, WalkReason } from '../../api/types';
import { LoadFailedResult } from '../../components/LoadFailedResult';
import { NotFoundResult } from '../../components/NotFoundResult';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { formatDate, formatDateTime, pad2 } from '../account/format';
import { seedData, seedError, useSeedRead } from '../../ssr/seeds';
import './result.css';

/** Why a drawn number was passed over, as the public page says it. */
export const WALK_TEXT: Record<WalkReason, string> = {
  not_sold: 'não foi vendido neste sorteio',
  out_of_range: 'não existe neste tabuleiro',
  voided: 'foi vendido, mas a compra foi estornada: não concorre',
};

export const resultTitle = (id: number) => `Resultado do Sorteio #${String(id).padStart(3, '0')}`;

/**
 * The public result of a draw (/resultado/{id}): the Lotomania contest, its 20 numbers in draw
 * order, each number passed over with why (RULES W3), the winning number and the winner's
 * initials (RULES N8), so anyone can check the winner rule (RULES W2) by hand.
 */
export default function ResultPage() {
  const { id: rawId } = useParams();
  const id = /^\d{1,10}$/.test(rawId ?? '') ? Number(rawId) : null;
  useDocumentTitle(id ? resultTitle(id) : 'Resultado');
  // The server-rendered page's result (or its 404), for this draw only: no first load then.
  const seed = useSeedRead('result');
  const [seeded] = useState(() => {
    const d = seedData<DrawResult>(seed);
    const e = seedError(seed);
    return d?.draw_id === id || e ? { data: d ?? null, error: e } : null;
  });
  const [data, setData] = useState<DrawResult | null>(seeded?.data ?? null);
  const [error, setError] = useState<unknown>(seeded?.error ?? null);
  const [attempt, setAttempt] = useState(0);
  const skipFirstLoad = useRef(!!seeded);

  useEffect(() => {
    if (!id) return;
    if (skipFirstLoad.current) {
      skipFirstLoad.current = false;
      return;
    }
    const ctrl = new AbortController();

    setError(null);
    api
      .get<DrawResult>(`/api/draws/${id}/result`, { signal: ctrl.signal })
      .then(setData)
      .catch((err) => {
        if (!ctrl.signal.aborted) setError(err);
      });
    return () => ctrl.abort();
  }, [id, attempt]);

  if (!id) return <NotFoundResult title="Sorteio não encontrado" subTitle="Confira o endereço." to="/" action="Ir para o início" />;
  if (error && !data) {
    if (error instanceof ApiError && error.status === 404) {
      const notYet = error.code === 'result_not_available';
      return (
        <NotFoundResult
          title={notYet ? 'Resultado ainda não disponível' : 'Sorteio não encontrado'}
          subTitle={errorMessage(error, 'Confira o endereço.')}
          to="/numeros"
          action="Ver os sorteios abertos"
        />
      );
    }
    return <LoadFailedResult title="Não foi possível carregar o resultado." error={error} onRetry={() => setAttempt((a) => a + 1)} />;
  }
  if (!data || data.draw_id !== id) {
    return (
      <div className="page page-narrow" role="status" aria-label="Carregando resultado">
        <Skeleton active title={{ width: '60%' }} paragraph={{ rows: 2 }} />
        <Skeleton.Node active style={{ width: '100%', height: 160, marginTop: 16 }} />
      </div>
    );
  }

  const passed = new Set(data.walk.map((w) => w.n));
  return (
    <div className="page page-narrow result-page">
      <h1>{resultTitle(data.draw_id)}</h1>
      <p className="muted result-sub">
        {data.title} · Concurso {data.contest_number} da Lotomania, de {formatDate(data.drawn_at)}
      </p>

      <Card title="Número vencedor">
        {data.winning_number !== null ? (
          <div className="result-winner">
            <span className="result-winner-number" aria-label={`Número vencedor ${pad2(data.winning_number)}`}>
              {pad2(data.winning_number)}
            </span>
            <div>
              <p>
                <TrophyOutlined aria-hidden /> Contemplado: <strong>{data.winner_initials || '—'}</strong>
              </p>
              <p className="muted">Realizado em {formatDateTime(data.realized_at)}</p>
            </div>
          </div>
        ) : (
          <Alert type="info" showIcon title="Sem vencedor: nenhum dos 20 números sorteados foi vendido neste sorteio." />
        )}
      </Card>

      <Card title="Os 20 números, na ordem do sorteio">
        <ol className="result-balls" aria-label="Números sorteados na ordem do sorteio">
          {data.numbers.map((n, i) => (
            <li key={n} className={n === data.winning_number ? 'is-winner' : passed.has(n) ? 'is-passed' : undefined}>
              <small>{i + 1}º</small>
              <span>{pad2(n)}</span>
            </li>
          ))}
        </ol>
      </Card>

      <Card title="Como o vencedor foi escolhido">
        <p>
          Vale o último número sorteado. Se ele não foi vendido neste sorteio (ou não existe no tabuleiro de {data.total_numbers} números),
          volta-se na ordem do sorteio até o último número vendido. Números de pagamentos estornados não contam.
        </p>
        {data.walk.length ? (
          <ol className="result-walk" aria-label="Números que não venceram">
            {data.walk.map((w) => (
              <li key={w.n}>
                {pad2(w.n)}: {WALK_TEXT[w.reason]}
              </li>
            ))}
          </ol>
        ) : (
          <p className="muted">O último número sorteado foi vendido: ele é o vencedor.</p>
        )}
        <p>
          <Link to="/numeros">Ver os sorteios abertos</Link>
        </p>
      </Card>
    </div>
  );
}
