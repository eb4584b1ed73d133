import { useEffect, type MutableRefObject } from 'react';
import type { PixAnswer } from './PixDialog';
import { statusLabel } from './purchaseApi';

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

/** Answer of a check that could not reach the server. */
export const STATUS_FAILED = 'Não foi possível consultar o status agora.';

/**
 * 'Já paguei': one status check now. When `onStatus` does not settle the payment, its answer (or
 * the failure) is handed to `setAnswer`, which the PIX dialog shows inside itself.
 */
export async function checkPixNow(o: {
  paymentId: number;
  session: MutableRefObject<number>;
  fetchStatus: (paymentId: number) => Promise<{ status: string }>;
  onStatus: (status: string) => boolean;
  setChecking: (checking: boolean) => void;
  setAnswer: (answer: PixAnswer | null) => void;
  /** Said under 'Status: pendente' (what happens next). */
  pendingDetail?: string;
}) {
  const mine = o.session.current;
  o.setChecking(true);
  o.setAnswer(null);
  try {
    const s = await o.fetchStatus(o.paymentId);
    if (o.session.current !== mine) return;
    if (o.onStatus(s.status)) return;
    o.setAnswer({ tone: 'info', title: `Status: ${statusLabel(s.status)}`, detail: o.pendingDetail });
  } catch {
    if (o.session.current !== mine) return;
    o.setAnswer({ tone: 'warning', title: STATUS_FAILED, detail: 'Tente de novo em instantes; seguimos consultando sozinhos.' });
  } finally {
    if (o.session.current === mine) o.setChecking(false);
  }
}
