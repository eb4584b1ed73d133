import { useCallback, useEffect, useRef, type MutableRefObject } from 'react';
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

type StatusAlert = MutableRefObject<{ destroy(): void } | null>;

/**
 * The 'Status: …' alert of the last 'Já paguei': it belongs to the PIX dialog, so the dialog
 * closes it when it closes or its payment settles (else it stays on top of what comes next),
 * and it never outlives the page.
 */
export function useStatusAlert(): { alert: StatusAlert; closeAlert: () => void } {
  const alert = useRef<{ destroy(): void } | null>(null);
  const closeAlert = useCallback(() => {
    alert.current?.destroy();
    alert.current = null;
  }, []);
  useEffect(() => closeAlert, [closeAlert]);
  return { alert, closeAlert };
}

/**
 * 'Já paguei': one status check now. When `onStatus` does not settle the payment, the answer
 * (or the failure) shows in the dialog's status alert and `afterUnsettled` runs.
 */
export async function checkPixNow(o: {
  paymentId: number;
  session: MutableRefObject<number>;
  fetchStatus: (paymentId: number) => Promise<{ status: string }>;
  onStatus: (status: string) => boolean;
  modal: { info(c: { title: string; centered: boolean }): { destroy(): void }; warning(c: { title: string; centered: boolean }): { destroy(): void } };
  alert: StatusAlert;
  closeAlert: () => void;
  setChecking: (checking: boolean) => void;
  afterUnsettled?: () => void;
}) {
  const mine = o.session.current;
  o.setChecking(true);
  try {
    const s = await o.fetchStatus(o.paymentId);
    if (o.session.current !== mine) return;
    if (o.onStatus(s.status)) return;
    o.closeAlert();
    o.alert.current = o.modal.info({ title: `Status: ${statusLabel(s.status)}`, centered: true });
    o.afterUnsettled?.();
  } catch {
    if (o.session.current !== mine) return;
    o.closeAlert();
    o.alert.current = o.modal.warning({ title: STATUS_FAILED, centered: true });
    o.afterUnsettled?.();
  } finally {
    if (o.session.current === mine) o.setChecking(false);
  }
}
