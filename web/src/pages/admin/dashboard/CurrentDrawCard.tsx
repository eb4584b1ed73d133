import { useState } from 'react';
import { Alert, App, Button, Card, Skeleton, Statistic } from 'antd';
import { PlusCircleOutlined, TrophyOutlined } from '@ant-design/icons';
import type { DashboardSummary } from '../../../api/types';
import { errorMessage } from '../../../api/client';
import { failureText } from '../shared/failure';
import { formatBRL, pad3, plural } from '../shared/format';
import { dashboardApi } from './dashboardApi';
import { RetryAlert } from '../shared/RetryAlert';

/** The summary's draw is the main series' own (not the newest open draw shown in its place). */
const ofMainSeries = (s: DashboardSummary) =>
  s.draw_id != null && s.main_infoproduct_id != null && s.infoproduct_id === s.main_infoproduct_id;

/**
 * The current draw (account spec §2 "Admin dashboard"): the main series' open draw, else the
 * newest open draw; its number, sold and remaining, and 'NOVO SORTEIO', which closes the main
 * series' draw and opens its successor after a confirmation that says how many numbers are sold.
 * The confirmation sends the draw and count the admin saw: if a sale lands in between, the server
 * refuses (409) and the card reloads with the new count. When the main series has no open draw,
 * 'NOVO SORTEIO' opens one and closes nothing.
 */
export function CurrentDrawCard({
  summary,
  loading,
  loadError,
  onRetry,
  onChanged,
}: {
  summary: DashboardSummary | null;
  loading: boolean;
  loadError: unknown;
  onRetry(): void;
  onChanged(): void;
}) {
  const { message, modal } = App.useApp();
  const [busy, setBusy] = useState(false);

  const startNew = async () => {
    setBusy(true);
    let fresh: DashboardSummary;
    try {
      // The confirmation states the count as it is now, not as it was when the page loaded.
      fresh = await dashboardApi.summary();
    } catch (err) {
      setBusy(false);
      void message.error(failureText('Não foi possível carregar o sorteio atual.', err));
      return;
    }
    setBusy(false);
    if (fresh.main_infoproduct_id == null) {
      void message.error('Nenhuma série principal configurada.');
      onChanged();
      return;
    }
    if (!ofMainSeries(fresh)) {
      modal.confirm({
        title: 'Abrir um sorteio da série principal?',
        content: (
          <div className="new-series-confirm">
            <p>A série principal não tem sorteio aberto. Um sorteio do e-book principal será aberto.</p>
            {fresh.draw_id != null && <p>O sorteio #{pad3(fresh.draw_id)}, de outro e-book, continua como está.</p>}
          </div>
        ),
        okText: 'NOVO SORTEIO',
        cancelText: 'Cancelar',
        onOk: async () => {
          try {
            const r = await dashboardApi.newSeries();
            void message.success(`Sorteio #${pad3(r.draw_id)} aberto.`);
          } catch (err) {
            void message.error(failureText('Não foi possível abrir um novo sorteio.', err), 6);
          } finally {
            onChanged();
          }
        },
      });
      return;
    }
    const drawId = fresh.draw_id!;
    const sold = fresh.sold;
    modal.confirm({
      title: 'Abrir um novo sorteio?',
      content: (
        <div className="new-series-confirm">
          <p>
            O sorteio <strong>#{pad3(drawId)}</strong> tem <strong>{plural(sold, 'número vendido', 'números vendidos')}</strong> e{' '}
            {plural(fresh.remaining, 'restante', 'restantes')} de {fresh.total_numbers}.
          </p>
          <p>Ele será fechado e o próximo sorteio da série principal será aberto. Os sorteios dos outros e-books não mudam.</p>
        </div>
      ),
      okText: 'NOVO SORTEIO',
      cancelText: 'Cancelar',
      onOk: async () => {
        try {
          const r = await dashboardApi.newSeries({ drawId, sold });
          void message.success(
            r.closed_draw_id != null
              ? `Sorteio #${pad3(r.closed_draw_id)} fechado. Sorteio #${pad3(r.draw_id)} aberto.`
              : `Sorteio #${pad3(r.draw_id)} aberto.`,
          );
        } catch (err) {
          void message.error(failureText('Não foi possível abrir um novo sorteio.', err), 6);
        } finally {
          onChanged();
        }
      },
    });
  };

  const newButton =
    summary?.main_infoproduct_id != null ? (
      <Button
        type="primary"
        danger
        icon={<PlusCircleOutlined />}
        loading={busy}
        onClick={() => void startNew()}
        className="current-draw-new"
      >
        NOVO SORTEIO
      </Button>
    ) : null;

  return (
    <Card
      className="admin-card current-draw-card"
      title={
        <span>
          <TrophyOutlined aria-hidden /> Sorteio atual
        </span>
      }
    >
      {loading && !summary ? (
        <div role="status" aria-label="Carregando o sorteio atual">
          <Skeleton active paragraph={{ rows: 3 }} />
        </div>
      ) : loadError && !summary ? (
        <RetryAlert title={errorMessage(loadError, 'Não foi possível carregar o painel.')} icon onRetry={onRetry} />
      ) : summary && summary.draw_id != null ? (
        <>
          <p className="current-draw-title">{summary.title}</p>
          <div className="current-draw-stats" aria-live="polite">
            <Statistic title="Sorteio nº" value={`#${pad3(summary.draw_id)}`} />
            <Statistic title="Vendidos" value={summary.sold} />
            <Statistic
              title="Restantes"
              value={summary.remaining}
              suffix={<span className="muted current-draw-total">/ {summary.total_numbers}</span>}
            />
            <Statistic title="Preço do número" value={formatBRL(summary.price_cents)} />
          </div>
          {summary.reserved > 0 && (
            <p className="muted current-draw-note">
              {plural(summary.reserved, 'número reservado', 'números reservados')} aguardando pagamento (contam como restantes).
            </p>
          )}
          {!ofMainSeries(summary) && (
            <p className="muted current-draw-note">
              {summary.main_infoproduct_id == null
                ? 'Nenhuma série principal configurada: este é o sorteio aberto mais recente.'
                : 'A série principal não tem sorteio aberto: este é o sorteio aberto mais recente, de outro e-book.'}
            </p>
          )}
          {newButton}
        </>
      ) : (
        <>
          <Alert
            type="warning"
            showIcon
            title={summary?.main_infoproduct_id == null ? 'Nenhum sorteio aberto.' : 'A série principal não tem sorteio aberto.'}
            description={
              summary?.main_infoproduct_id == null
                ? 'Abra um sorteio na tabela de sorteios abaixo.'
                : 'NOVO SORTEIO abre um sorteio do e-book principal.'
            }
          />
          {newButton}
        </>
      )}
    </Card>
  );
}
