import { useEffect, type MutableRefObject } from 'react';

/** How often an open PIX dialog asks for its payment's status (storefront spec §4). */
export const STATUS_POLL_MS = 3000;

/**
 * Asks for a PIX payment's status every STATUS_POLL_MS while `active` (its dialog is open and
 * the payment has not lapsed), until `onStatus` says the payment settled (returns true). A failed
 * check sets `pollFailing` until one succeeds. `session` names the dialog that asked: an answer
 * arriving after it changed (closed, another payment) is dropped. Used by the purchase flow and
 * the customer area's 'Gerar PIX'.
 */
export function usePixStatusPoll(o: {
  active: boolean;
  paymentId: number | null;
  session: MutableRefObject<number>;
  fetchStatus: (paymentId: number, signal: AbortSignal) => Promise<{ status: string }>;
  onStatus: (status: string) => boolean;
  setPollFailing: (failing: boolean) => void;
}) {
  const { active, paymentId, session, fetchStatus, onStatus, setPollFailing } = o;
  useEffect(() => {
    if (!active || paymentId == null) return;
    const mine = session.current;
    const ctrl = new AbortController();
    let timer: ReturnType<typeof setTimeout>;
    const tick = async () => {
      try {
        const s = await fetchStatus(paymentId, ctrl.signal);
        if (ctrl.signal.aborted || session.current !== mine) return;
        setPollFailing(false);
        if (onStatus(s.status)) return;
      } catch {
        if (ctrl.signal.aborted || session.current !== mine) return;
        setPollFailing(true);
      }
      timer = setTimeout(tick, STATUS_POLL_MS);
    };
    timer = setTimeout(tick, STATUS_POLL_MS);
    return () => {
      ctrl.abort();
      clearTimeout(timer);
    };
  }, [active, paymentId, session, fetchStatus, onStatus, setPollFailing]);
}
