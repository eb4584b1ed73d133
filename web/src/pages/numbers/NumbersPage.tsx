import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { Alert, App, Button, Result } from 'antd';
import { ReloadOutlined, ShoppingOutlined } from '@ant-design/icons';
import { useLocation, useNavigate } from 'react-router-dom';
import { initialsOf } from '../../../../src/shared/initials';
import { ApiError, errorMessage } from '../../api/client';
import { useAuth } from '../../auth/AuthContext';
import { NumberGrid, NumberLegend } from '../../components/board/NumberGrid';
import { LinkButton } from '../../components/LinkButton';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import {
  countBoard,
  drawSourceOf,
  isSoldOut,
  formatNumbers,
  maxSelectionOf,
  ownNumbers,
  sortUnique,
  statusOf,
  toggleNumber,
  unavailableAmong,
} from './board';
import { ClosedDraws } from './ClosedDraws';
import { ConfirmDialog } from './ConfirmDialog';
import { consumeFailure, consumeVouchers, reservationFailure, reservedText, reserveNumbers, SUCCESS_MESSAGE } from './confirm';
import { DrawHeader, DrawHeaderSkeleton } from './DrawHeader';
import { DrawRulesNote } from './DrawRulesNote';
import { SelectionPanel } from './SelectionPanel';
import {
  openDrawOf,
  useAllowance,
  useBoard,
  useClosedDraws,
  useDraw,
  useDrawId,
  useMyReservations,
  usePublicConfig,
} from './useNumbersData';
import { readPendingSelection, savePendingSelection, useSelection } from './useSelection';
import './numbers.css';

const LIMIT_TEXT = 'Você atingiu seu limite de números disponíveis neste sorteio.';

/** A reservation this visitor holds: a confirmation that failed after it can be retried with it. */
interface Held {
  drawId: number;
  key: string;
  id: number;
  numbers: number[];
  expiresAt: number;
}

const keyOf = (ns: readonly number[]) => sortUnique(ns).join(',');
const noop = () => undefined;

/** Number board (storefront spec §2 "Number board (/numeros)", §4, §5, §7, §8). */
export default function NumbersPage() {
  useDocumentTitle('Escolha seus números');
  const location = useLocation();
  const navigate = useNavigate();
  const { modal, message } = App.useApp();
  const auth = useAuth();
  const signedIn = !auth.loading && auth.isAuthenticated;

  // Picks saved before a trip to /login come back with their draw.
  const [pending] = useState(readPendingSelection);
  const [ignorePending, setIgnorePending] = useState(false);
  const fromState = drawSourceOf(location.state);
  const source =
    fromState.drawId || fromState.product || !pending || ignorePending ? fromState : { drawId: pending.drawId, product: null };

  const config = usePublicConfig();
  const resolved = useDrawId(source, config.data, config.error, { signedIn, loading: auth.loading });
  const drawId = resolved.data;
  const draw = useDraw(drawId);
  const board = useBoard(drawId);
  const allowance = useAllowance(drawId, signedIn);
  const myReservations = useMyReservations(drawId, signedIn);
  /** Numbers confirmed on this screen, marked as the customer's before the reservations reload. */
  const [confirmed, setConfirmed] = useState<{ drawId: number; numbers: number[] } | null>(null);
  const { selected, setSelected, clear } = useSelection(drawId, pending);
  const [closedVersion, setClosedVersion] = useState(0);
  const closed = useClosedDraws(closedVersion);

  const [checking, setChecking] = useState(false);
  const [dialogOpen, setDialogOpen] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const [soldOutError, setSoldOutError] = useState<string | null>(null);
  const held = useRef<Held | null>(null);
  /** The answer of the last CONFIRMAR, shown above the board and focused when it appears. */
  const [outcome, setOutcome] = useState<{ id: number; text: string; numbers: number[] } | null>(null);
  const outcomeRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (outcome) outcomeRef.current?.focus();
  }, [outcome]);
  const handled = useRef(new Set<number>());

  const maxSelection = maxSelectionOf(config.data?.max_numbers_per_selection);
  const remaining = signedIn && !allowance.loading && !allowance.error ? allowance.allowance.remaining : null;
  const total = board.board?.total_numbers || draw.data?.total_numbers || 100;
  const counts = board.board ? countBoard(board.board) : null;
  const myInitials = signedIn && auth.user ? initialsOf(auth.user.name) || null : null;
  const mine = useMemo(
    () =>
      signedIn
        ? ownNumbers(board.board, {
            reservations: myReservations.items,
            confirmed: confirmed && confirmed.drawId === board.board?.draw_id ? confirmed.numbers : [],
            initials: myInitials,
          })
        : [],
    [signedIn, board.board, myReservations.items, confirmed, myInitials],
  );

  const notice = useCallback(
    (content: ReactNode) => modal.warning({ title: 'Aviso', content, okText: 'OK', centered: true }),
    [modal],
  );

  const heldNumbers = useCallback(() => {
    const h = held.current;
    return h && h.drawId === drawId && h.expiresAt > Date.now() ? h.numbers : [];
  }, [drawId]);

  // Spec §4: a board with no free number left gives way to the product's next open draw.
  const boardNow = board.board;
  const drawNow = draw.data;
  useEffect(() => {
    if (!boardNow || !drawNow || boardNow.draw_id !== drawNow.id || !isSoldOut(boardNow)) return;
    if (handled.current.has(boardNow.draw_id)) return;
    handled.current.add(boardNow.draw_id);
    setClosedVersion((v) => v + 1);
    if (!drawNow.infoproduct_id) return;
    const soldOutId = boardNow.draw_id;
    openDrawOf(drawNow.infoproduct_id, signedIn).then(
      (nextId) => {
        if (!nextId || nextId === soldOutId) return;
        setSoldOutError(null);
        clear();
        navigate(location.pathname, { replace: true, state: { drawId: nextId }, preventScrollReset: true });
        message.success(`Tabela esgotada! Nova rodada (#${nextId}) aberta automaticamente.`, 6);
      },
      (err) => setSoldOutError(errorMessage(err, 'Não foi possível abrir a nova rodada agora.')),
    );
  }, [boardNow, drawNow, signedIn, clear, navigate, location.pathname, message]);

  const onToggle = (n: number) => {
    if (dialogOpen || checking) return;
    const out = toggleNumber(selected, n, { status: statusOf(board.board, n), total, remaining, maxSelection });
    if (out.kind === 'changed') setSelected(out.selected);
    else if (out.kind === 'limit') notice(LIMIT_TEXT);
    else if (out.kind === 'max') notice(`Você pode escolher no máximo ${out.max} números por vez.`);
  };

  const confirmDisabled = !selected.length || (remaining !== null && selected.length > remaining) || !board.board;

  /** CONFIRMAR on the panel: sign-in check, fresh board and allowance, then the dialog (spec §5). */
  const onConfirm = async () => {
    if (!drawId || !selected.length) return;
    if (!signedIn) {
      savePendingSelection({ drawId, numbers: selected });
      navigate('/login', { state: { from: '/numeros', message: 'Entre na sua conta para confirmar seus números.' } });
      return;
    }
    setChecking(true);
    try {
      const [fresh, now] = await Promise.all([board.refresh(), allowance.refresh()]);
      const gone = unavailableAmong(fresh, selected, heldNumbers());
      if (gone.length) {
        setSelected((prev) => prev.filter((n) => !gone.includes(n)));
        notice(reservedText(gone));
        return;
      }
      if (selected.length > now.remaining) {
        notice(LIMIT_TEXT);
        return;
      }
      setOutcome(null);
      setDialogOpen(true);
    } catch (err) {
      notice(errorMessage(err, 'Não foi possível atualizar a tabela agora. Tente novamente.'));
    } finally {
      setChecking(false);
    }
  };

  const refreshAll = () => {
    board.refresh().catch(noop);
    allowance.refresh().catch(noop);
  };

  /** CONFIRMAR in the dialog: reserve, then spend the vouchers (spec §7, messages of §8). */
  const submit = async () => {
    if (!drawId || !selected.length || submitting) return;
    const numbers = [...selected];
    const key = keyOf(numbers);
    setSubmitting(true);
    try {
      let h = held.current;
      if (!h || h.drawId !== drawId || h.key !== key || h.expiresAt <= Date.now()) {
        try {
          const r = await reserveNumbers(drawId, numbers);
          h = { drawId, key, id: r.reservationId ?? r.id, numbers, expiresAt: Date.parse(r.expires_at) || Date.now() + 60_000 };
          held.current = h;
        } catch (err) {
          const f = reservationFailure(err, numbers);
          setDialogOpen(false);
          if (f.conflicts.length) setSelected((prev) => prev.filter((n) => !f.conflicts.includes(n)));
          notice(f.text);
          refreshAll();
          return;
        }
      }
      try {
        const res = await consumeVouchers(drawId, h.id, numbers);
        held.current = null;
        setDialogOpen(false);
        clear();
        setConfirmed((c) => ({ drawId, numbers: sortUnique([...(c?.drawId === drawId ? c.numbers : []), ...numbers]) }));
        myReservations.reload();
        setOutcome({ id: Date.now(), text: res?.message || SUCCESS_MESSAGE, numbers });
      } catch (err) {
        const f = consumeFailure(err, numbers);
        // The hold is gone or no longer matches: a retry needs a new reservation.
        if (err instanceof ApiError && (err.status === 404 || err.code === 'numbers_conflict')) held.current = null;
        setDialogOpen(false);
        if (f.conflicts.length) setSelected((prev) => prev.filter((n) => !f.conflicts.includes(n)));
        notice(f.text);
      }
      refreshAll();
    } finally {
      setSubmitting(false);
    }
  };

  /* ---------------------------------------------------------------------------------------- */

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

  if (!resolved.loading && drawId === null) {
    return (
      <div className="page numbers-page">
        <Result
          status="info"
          title={<h1 className="result-title">Nenhum sorteio aberto no momento</h1>}
          subTitle="Todas as tabelas estão fechadas. Assim que uma nova rodada abrir, você poderá escolher seus números aqui."
          extra={
            <LinkButton type="primary" to="/">
              Voltar ao início
            </LinkButton>
          }
        />
        <ClosedDraws items={closed.items} loading={closed.loading} />
      </div>
    );
  }

  const drawMissing =
    (draw.error instanceof ApiError && draw.error.status === 404) || (board.error instanceof ApiError && board.error.status === 404 && !board.board);
  if (drawMissing) {
    return (
      <div className="page page-narrow">
        <Result
          status="404"
          title={<h1 className="result-title">Sorteio não encontrado</h1>}
          subTitle={`O sorteio #${drawId} não existe ou foi removido.`}
          extra={
            <div className="result-actions">
              <Button
                type="primary"
                onClick={() => {
                  setIgnorePending(true);
                  navigate('/numeros', { replace: true, state: null });
                }}
              >
                Ver o sorteio aberto
              </Button>
              <LinkButton to="/">Voltar ao início</LinkButton>
            </div>
          }
        />
      </div>
    );
  }

  if (draw.error) {
    return <LoadError text={errorMessage(draw.error, 'Não foi possível carregar o sorteio.')} onRetry={draw.reload} />;
  }

  const loadingDraw = resolved.loading || !draw.data;

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
          {outcome && (
            <div ref={outcomeRef} tabIndex={-1} className="numbers-result" key={outcome.id}>
              <Alert
                type="success"
                showIcon
                title={outcome.text}
                description={`${outcome.numbers.length === 1 ? 'Número' : 'Números'} ${formatNumbers(outcome.numbers)}: já estão na sua área do cliente.`}
                closable={{ closeIcon: true, 'aria-label': 'Fechar mensagem' }}
                onClose={() => setOutcome(null)}
              />
            </div>
          )}
          {mine.length > 0 && (
            <p className="numbers-mine" aria-live="polite">
              {mine.length === 1 ? 'Seu número neste sorteio: ' : 'Seus números neste sorteio: '}
              <strong>{formatNumbers(mine)}</strong>
            </p>
          )}

          {signedIn && !allowance.loading && allowance.error != null && (
            <Alert
              type="error"
              showIcon
              className="numbers-alert"
              title={errorMessage(allowance.error, 'Não foi possível carregar quantos números você pode escolher.')}
              description={
                <Button size="small" onClick={() => allowance.refresh().catch(noop)}>
                  Tentar novamente
                </Button>
              }
            />
          )}
          {signedIn && remaining === 0 && draw.data?.status === 'open' && (
            <Alert
              type="info"
              showIcon
              className="numbers-alert"
              title="Você não tem números para escolher neste sorteio."
              description={
                <>
                  <p className="numbers-alert-text">Cada e-book comprado dá direito a escolher 1 número nesta tabela.</p>
                  <LinkButton size="small" type="primary" icon={<ShoppingOutlined />} to="/infoprodutos">
                    Ver e-books
                  </LinkButton>
                </>
              }
            />
          )}
          {board.board && isSoldOut(board.board) && (
            <Alert
              type="warning"
              showIcon
              className="numbers-alert"
              title="Tabela esgotada: todos os números deste sorteio foram vendidos."
              description={soldOutError ?? undefined}
            />
          )}
          {board.board && board.error != null && (
            <Alert
              type="warning"
              showIcon
              className="numbers-alert"
              title={errorMessage(board.error, 'Não foi possível atualizar a tabela agora.')}
              description={
                <>
                  <p className="numbers-alert-text">Os números abaixo podem estar desatualizados.</p>
                  <Button size="small" icon={<ReloadOutlined />} onClick={() => board.refresh().catch(noop)}>
                    Atualizar
                  </Button>
                </>
              }
            />
          )}

          {board.board ? (
            <NumberGrid
              numbers={board.board.numbers}
              totalNumbers={total}
              selected={selected}
              onToggle={onToggle}
              mine={mine}
              ariaLabel={`Tabela de números do sorteio #${board.board.draw_id}`}
            />
          ) : board.error != null && !board.loading ? (
            <Alert
              type="error"
              showIcon
              title={errorMessage(board.error, 'Não foi possível carregar a tabela de números.')}
              description={
                <Button size="small" icon={<ReloadOutlined />} onClick={() => board.refresh().catch(noop)}>
                  Tentar novamente
                </Button>
              }
            />
          ) : (
            <BoardSkeleton />
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
            onRemove={(n) => setSelected((prev) => prev.filter((x) => x !== n))}
            onClear={clear}
            onConfirm={() => void onConfirm()}
            confirmDisabled={confirmDisabled}
            checking={checking}
          />
        </div>
      </div>

      <div className="numbers-more">
        <DrawRulesNote />
        <ClosedDraws items={closed.items} loading={closed.loading} />
      </div>

      <ConfirmDialog
        open={dialogOpen}
        drawId={drawId}
        numbers={selected}
        submitting={submitting}
        onBack={() => setDialogOpen(false)}
        onClear={() => {
          clear();
          setDialogOpen(false);
        }}
        onConfirm={() => void submit()}
        returnFocus={!outcome}
        afterClose={() => {
          if (outcome) outcomeRef.current?.focus();
        }}
      />
    </div>
  );
}

function LoadError({ text, onRetry }: { text: string; onRetry(): void }) {
  return (
    <div className="page page-narrow">
      <Result
        status="warning"
        title={<h1 className="result-title">Não foi possível carregar a tabela</h1>}
        subTitle={text}
        extra={
          <div className="result-actions">
            <Button type="primary" icon={<ReloadOutlined />} onClick={onRetry}>
              Tentar novamente
            </Button>
            <LinkButton to="/">Voltar ao início</LinkButton>
          </div>
        }
      />
    </div>
  );
}

/** 100 placeholder cells in the board's shape. */
function BoardSkeleton() {
  return (
    <div className="number-grid number-grid--interactive numbers-grid-skeleton" role="status" aria-label="Carregando a tabela de números">
      {Array.from({ length: 100 }, (_, i) => (
        <span key={i} className="number-cell" />
      ))}
    </div>
  );
}
