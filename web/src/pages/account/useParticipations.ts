import { useCallback, useEffect, useRef, useState } from 'react';
import type { ParticipationItem } from '../../../../src/shared/api/account';
import { accountApi } from './accountApi';
import { buildParticipationRows, type DrawInfo, type ParticipationRow, type ReservationLike } from './participations';

/** At most this many open draws are asked for the vouchers left (one call each). */
const MAX_OPEN_DRAWS = 20;

export interface ParticipationsState {
  rows: ParticipationRow[];
  /** The raw payments list (the pay flow reuses its PIX data). */
  payments: ParticipationItem[];
  loading: boolean;
  /** The payments or reservations could not be loaded. */
  error: unknown;
  /** Vouchers left could not be checked for some open draws (their rows may be missing). */
  vouchersUnknown: boolean;
  reload(): void;
}

/**
 * Loads the participations of /conta: payments and voucher uses, active holds, the open draws and
 * the vouchers left in each, then derives the rows (participations.ts). `reload` refreshes quietly
 * (the table stays while the new data loads).
 */
export function useParticipations(): ParticipationsState {
  const [state, setState] = useState<Omit<ParticipationsState, 'reload'>>({
    rows: [],
    payments: [],
    loading: true,
    error: null,
    vouchersUnknown: false,
  });
  const [attempt, setAttempt] = useState(0);
  const loadedOnce = useRef(false);

  useEffect(() => {
    const ctrl = new AbortController();
    const { signal } = ctrl;
    if (!loadedOnce.current) setState((s) => ({ ...s, loading: true, error: null }));
    (async () => {
      let payments: ParticipationItem[];
      let reservations: ReservationLike[];
      try {
        [payments, reservations] = await Promise.all([accountApi.payments(signal), accountApi.activeReservations(signal)]);
      } catch (err) {
        if (signal.aborted) return;
        setState((s) => ({ ...s, loading: false, error: err }));
        return;
      }
      let draws: DrawInfo[] = [];
      const remaining: Record<number, number> = {};
      let vouchersUnknown = false;
      try {
        const open = (await accountApi.openDraws(signal)).slice(0, MAX_OPEN_DRAWS);
        draws = open.map((d) => ({
          id: d.id,
          infoproductId: d.infoproduct_id,
          title: d.title || d.product_title || '',
          status: d.status,
          result: d.status,
          sku: d.sku,
          winner_number: d.winner_number,
          won: null,
        }));
        const answers = await Promise.allSettled(open.map((d) => accountApi.remaining(d.id, signal)));
        answers.forEach((a, i) => {
          if (a.status === 'fulfilled') remaining[open[i].id] = a.value.remaining;
          else vouchersUnknown = true;
        });
      } catch {
        vouchersUnknown = true;
      }
      if (signal.aborted) return;
      loadedOnce.current = true;
      setState({
        rows: buildParticipationRows({ payments, reservations, draws, remaining, now: Date.now() }),
        payments,
        loading: false,
        error: null,
        vouchersUnknown,
      });
    })();
    return () => ctrl.abort();
  }, [attempt]);

  const reload = useCallback(() => setAttempt((a) => a + 1), []);
  return { ...state, reload };
}
