import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router-dom';
import { ApiError, errorMessage } from '../../../api/client';
import { sortUnique, unavailableAmong } from '../board';
import { consumeFailure, consumeVouchers, LIMIT_TEXT, reservationFailure, reservedText, reserveNumbers, SUCCESS_MESSAGE } from '../confirm';
import { noop, type AllowanceState, type BoardState } from './useNumbersData';
import { savePendingSelection } from './useSelection';

/** A reservation this visitor holds: a confirmation that failed after it can be retried with it. */
interface Held {
  drawId: number;
  key: string;
  id: number;
  numbers: number[];
  expiresAt: number;
}

/** The answer of the last CONFIRMAR, shown above the board. */
export interface Outcome {
  id: number;
  text: string;
  numbers: number[];
}

const keyOf = (ns: readonly number[]) => sortUnique(ns).join(',');

/**
 * The two CONFIRMAR of /numeros (storefront spec §5, §7, messages of §8): the panel's (sign-in
 * check, fresh board and allowance, then the dialog) and the dialog's (reserve, then spend the
 * vouchers; a hold that outlives a failed confirmation is reused for the retry).
 */
export function useConfirmNumbers({
  drawId,
  signedIn,
  selected,
  setSelected,
  clear,
  board,
  allowance,
  reloadMine,
  notice,
}: {
  drawId: number | null;
  signedIn: boolean;
  selected: number[];
  setSelected(next: number[] | ((prev: number[]) => number[])): void;
  clear(): void;
  board: BoardState;
  allowance: AllowanceState;
  /** Reloads the caller's reservations (their numbers on the board). */
  reloadMine(): void;
  notice(content: ReactNode): void;
}) {
  const navigate = useNavigate();
  /** Numbers confirmed on this screen, marked as the customer's before the reservations reload. */
  const [confirmed, setConfirmed] = useState<{ drawId: number; numbers: number[] } | null>(null);
  const [checking, setChecking] = useState(false);
  const [dialogOpen, setDialogOpen] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const held = useRef<Held | null>(null);
  /** The answer of the last CONFIRMAR, shown above the board and focused when it appears. */
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const outcomeRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (outcome) outcomeRef.current?.focus();
  }, [outcome]);

  const heldNumbers = () => {
    const h = held.current;
    return h && h.drawId === drawId && h.expiresAt > Date.now() ? h.numbers : [];
  };

  /** CONFIRMAR on the panel: sign-in check, fresh board and allowance, then the dialog (storefront spec §5). */
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

  /** CONFIRMAR in the dialog: reserve, then spend the vouchers (storefront spec §7, messages of §8). */
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
        reloadMine();
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

  return {
    confirmed,
    checking,
    dialogOpen,
    setDialogOpen,
    submitting,
    outcome,
    dismissOutcome: () => setOutcome(null),
    outcomeRef,
    onConfirm,
    submit,
  };
}
