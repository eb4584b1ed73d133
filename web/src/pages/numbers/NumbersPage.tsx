import { useState } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { ApiError, errorMessage } from '../../api/client';
import { useAuth } from '../../auth/AuthContext';
import { NumberLegend } from '../../components/board/NumberGrid';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { countBoard, formatNumbers, freeNumbers, maxSelectionOf, statusOf, surpriseMax, surpriseNumbers, toggleNumber } from './board';
import { LIMIT_TEXT } from './confirm';
import { BoardAlerts } from './components/BoardAlerts';
import { BoardGrid } from './components/BoardGrid';
import { ClosedDraws } from './components/ClosedDraws';
import { BoardTools } from './components/BoardTools';
import { ConfirmDialog, NoticeDialog } from './components/ConfirmDialog';
import { ConfirmOutcome } from './components/ConfirmOutcome';
import { DrawHeader, DrawHeaderSkeleton } from './components/DrawHeader';
import { DrawRulesNote } from './components/DrawRulesNote';
import { DrawNotFound, LoadError, NoOpenDraw } from './components/PageResults';
import { SelectionPanel } from './components/SelectionPanel';
import { useConfirmNumbers } from './hooks/useConfirmNumbers';
import { useDrawSource } from './hooks/useDrawSource';
import { useMyNumbers } from './hooks/useMyNumbers';
import { useNotice } from './hooks/useNotice';
import { usePanelClearance } from './hooks/usePanelClearance';
import { useAllowance, useBoard, useClosedDraws, useDraw, useDrawId, useMyReservations, usePublicConfig } from './hooks/useNumbersData';
import { useSelection } from './hooks/useSelection';
import { useSoldOutRollover } from './hooks/useSoldOutRollover';
import { QueryScope } from '../../query';
import './numbers.css';

/**
 * /numeros is rendered outside the antd scope (router.tsx): plain elements only, and its own
 * query client provider (the one AntdOutlet gives the other pages).
 */
export default function NumbersRoute() {
  return (
    <QueryScope>
      <NumbersPage />
    </QueryScope>
  );
}

/**
 * Number board (storefront spec §2 "Number board (/numeros)", §4, §5, §7, §8): which draw, its
 * board and the visitor's picks; the data, confirming and the sold-out rollover are the hooks/,
 * the parts of the screen the components/.
 */
function NumbersPage() {
  useDocumentTitle('Escolha seus números');
  const location = useLocation();
  const navigate = useNavigate();
  const { notice, content: noticeContent, close: closeNotice } = useNotice();
  const [onlyFree, setOnlyFree] = useState(false);
  const [surprise, setSurprise] = useState<number[] | null>(null);
  const panelRef = usePanelClearance<HTMLElement>();
  const auth = useAuth();
  const signedIn = !auth.loading && auth.isAuthenticated;

  const { source, pending, ignorePending } = useDrawSource(location.state);
  const config = usePublicConfig();
  const resolved = useDrawId(source, config.data, config.error, { signedIn, loading: auth.loading });
  const drawId = resolved.data;
  const draw = useDraw(drawId);
  const board = useBoard(drawId);
  const allowance = useAllowance(drawId, signedIn);
  const myReservations = useMyReservations(drawId, signedIn);
  const { selected, setSelected, clear } = useSelection(drawId, pending);
  const confirm = useConfirmNumbers({
    drawId,
    signedIn,
    selected,
    setSelected,
    clear,
    board,
    allowance,
    reloadMine: myReservations.reload,
    notice,
  });
  const { closedVersion, soldOutError, rolledOver } = useSoldOutRollover({ board: board.board, draw: draw.data, signedIn, clear });
  const closed = useClosedDraws(closedVersion);

  const maxSelection = maxSelectionOf(config.data?.max_numbers_per_selection);
  const remaining = signedIn && !allowance.loading && !allowance.error ? allowance.allowance.remaining : null;
  const total = board.board?.total_numbers || draw.data?.total_numbers || 100;
  const counts = board.board ? countBoard(board.board) : null;
  const mine = useMyNumbers({
    signedIn,
    user: auth.user,
    board: board.board,
    reservations: myReservations.items,
    confirmed: confirm.confirmed,
  });

  const onToggle = (n: number) => {
    if (confirm.dialogOpen || confirm.checking) return;
    const out = toggleNumber(selected, n, { status: statusOf(board.board, n), total, remaining, maxSelection });
    if (out.kind === 'changed') setSelected(out.selected);
    else if (out.kind === 'limit') notice(LIMIT_TEXT);
    else if (out.kind === 'max') notice(`Você pode escolher no máximo ${out.max} ${out.max === 1 ? 'número' : 'números'} por vez.`);
  };

  const free = freeNumbers(board.board, total);
  const surpriseLimit = surpriseMax({ maxSelection, free: free.length, remaining });
  const onSurprise = (count: number) => {
    if (confirm.dialogOpen || confirm.checking) return;
    const picked = surpriseNumbers(free, Math.min(count, surpriseLimit));
    if (!picked.length) return;
    setSelected(picked);
    setSurprise(picked);
  };

  const confirmDisabled = !selected.length || (remaining !== null && selected.length > remaining) || !board.board;

  if (resolved.error || (!resolved.loading && drawId === null && config.error)) {
    return (
      <LoadError
        text={errorMessage(resolved.error ?? config.error, 'Não foi possível carregar a tabela de números.')}
        onRetry={() => {
          config.reload();
          resolved.reload();
        }}
      />
    );
  }

  if (!resolved.loading && drawId === null) return <NoOpenDraw closed={closed} />;

  const drawMissing =
    (draw.error instanceof ApiError && draw.error.status === 404) ||
    (board.error instanceof ApiError && board.error.status === 404 && !board.board);
  if (drawMissing) {
    return (
      <DrawNotFound
        drawId={drawId}
        onShowOpen={() => {
          ignorePending();
          navigate('/numeros', { replace: true, state: null });
        }}
      />
    );
  }

  if (draw.error) {
    return <LoadError text={errorMessage(draw.error, 'Não foi possível carregar o sorteio.')} onRetry={draw.reload} />;
  }

  const loadingDraw = resolved.loading || !draw.data;
  const { outcome, outcomeRef } = confirm;

  return (
    <div className="page numbers-page">
      <div className="numbers-layout">
        <section className="numbers-board" aria-labelledby="numbers-board-title">
          <div className="numbers-board-head">
            <h2 id="numbers-board-title" className="numbers-board-title">
              Tabela de números
            </h2>
            <NumberLegend withSelected withMine={mine.length > 0} />
          </div>
          {rolledOver && (
            <p className="numbers-rolled-over" role="status">
              {rolledOver}
            </p>
          )}
          {outcome && <ConfirmOutcome key={outcome.id} outcome={outcome} focusRef={outcomeRef} onClose={confirm.dismissOutcome} />}
          {mine.length > 0 && (
            <p className="numbers-mine" aria-live="polite">
              {mine.length === 1 ? 'Seu número neste sorteio: ' : 'Seus números neste sorteio: '}
              <strong>{formatNumbers(mine)}</strong>
            </p>
          )}
          <BoardAlerts
            signedIn={signedIn}
            allowance={allowance}
            remaining={remaining}
            drawStatus={draw.data?.status}
            board={board}
            soldOutError={soldOutError}
          />
          {board.board && (
            <BoardTools
              onlyFree={onlyFree}
              onOnlyFree={setOnlyFree}
              max={surpriseLimit}
              onSurprise={onSurprise}
              disabled={confirm.dialogOpen || confirm.checking}
            />
          )}
          {surprise && surprise.length > 0 && formatNumbers(surprise) === formatNumbers(selected) && (
            <p className="numbers-surprise-result" role="status">
              Surpresinha: <strong>{formatNumbers(surprise)}</strong>. Confira e toque em CONFIRMAR.
            </p>
          )}
          {onlyFree && board.board && free.length === 0 && selected.length === 0 ? (
            <p className="muted numbers-none-free">Nenhum número livre nesta tabela agora.</p>
          ) : (
            <BoardGrid
              board={board}
              total={total}
              selected={selected}
              mine={mine}
              onToggle={(n) => {
                setSurprise(null);
                onToggle(n);
              }}
              onlyFree={onlyFree}
            />
          )}
        </section>
        {/* Phones: header above the board, panel pinned below it. Wide screens: both beside the board. */}
        <div className="numbers-side">
          {loadingDraw || !draw.data ? <DrawHeaderSkeleton /> : <DrawHeader draw={draw.data} counts={counts} />}
          <SelectionPanel
            signedIn={signedIn}
            remaining={remaining}
            allowanceLoading={signedIn && allowance.loading}
            selected={selected}
            maxSelection={maxSelection}
            onRemove={(n) => {
              setSurprise(null);
              setSelected((prev) => prev.filter((x) => x !== n));
            }}
            onClear={() => {
              setSurprise(null);
              clear();
            }}
            onConfirm={() => void confirm.onConfirm()}
            confirmDisabled={confirmDisabled}
            checking={confirm.checking}
            panelRef={panelRef}
          />
        </div>
      </div>

      <div className="numbers-more">
        <DrawRulesNote />
        <ClosedDraws items={closed.items} loading={closed.loading} />
      </div>

      <ConfirmDialog
        open={confirm.dialogOpen}
        drawId={drawId}
        numbers={selected}
        submitting={confirm.submitting}
        onBack={() => confirm.setDialogOpen(false)}
        onClear={() => {
          setSurprise(null);
          clear();
          confirm.setDialogOpen(false);
        }}
        onConfirm={() => void confirm.submit()}
        returnFocus={!outcome}
      />
      {noticeContent != null && <NoticeDialog content={noticeContent} onClose={closeNotice} />}
    </div>
  );
}
