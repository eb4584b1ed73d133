import { useEffect, useLayoutEffect, useRef } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { PixAnswer } from './PixDialog';
import { statusLabel } from './purchaseApi';

/** How often an open PIX dialog asks for its payment's status (storefront spec §4). */
export const STATUS_POLL_MS = 3000;

/**
 * Asks for a PIX payment's status every STATUS_POLL_MS while `active` (its dialog is open and the
 * payment has not lapsed): a react-query query per payment, polled by its refetchInterval, so an
 * answer for another payment never reaches this dialog and a closed dialog stops asking. Each new
 * answer goes to `onStatus`; a failed check sets `pollFailing` until one succeeds. Used by the
 * purchase flow and the customer area's 'Gerar PIX'.
 */
export function usePixStatusPoll(o: {
  active: boolean;
  paymentId: number | null;
  fetchStatus: (paymentId: number, signal: AbortSignal) => Promise<{ status: string }>;
  onStatus: (status: string) => boolean;
  setPollFailing: (failing: boolean) => void;
}) {
  const { active, paymentId, fetchStatus, onStatus, setPollFailing } = o;
  const q = useQuery({
    queryKey: ['payment-status', paymentId],
    queryFn: ({ signal }) => fetchStatus(paymentId as number, signal),
    enabled: active && paymentId != null,
    refetchInterval: STATUS_POLL_MS,
    refetchIntervalInBackground: true,
    retry: false,
    gcTime: 0,
  });
  const onStatusRef = useRef(onStatus);
  useLayoutEffect(() => {
    onStatusRef.current = onStatus;
  });
  const { data, dataUpdatedAt, errorUpdatedAt, isError } = q;
  useEffect(() => {
    if (active && data) onStatusRef.current(data.status);
  }, [active, data, dataUpdatedAt]);
  useEffect(() => {
    if (active) setPollFailing(isError);
  }, [active, isError, errorUpdatedAt, setPollFailing]);
}

/** Answer of a check that could not reach the server. */
export const STATUS_FAILED = 'Não foi possível consultar o status agora.';

/**
 * 'Já paguei': one status check now. When `onStatus` does not settle the payment, its answer (or
 * the failure) is handed to `setAnswer`, which the PIX dialog shows inside itself.
 */
export async function checkPixNow(o: {
  paymentId: number;
  /** False once the dialog that asked is gone (closed, or a new code): its answer is dropped. */
  isCurrent: () => boolean;
  fetchStatus: (paymentId: number) => Promise<{ status: string }>;
  onStatus: (status: string) => boolean;
  setChecking: (checking: boolean) => void;
  setAnswer: (answer: PixAnswer | null) => void;
  /** Said under 'Status: pendente' (what happens next). */
  pendingDetail?: string;
}) {
  o.setChecking(true);
  o.setAnswer(null);
  try {
    const s = await o.fetchStatus(o.paymentId);
    if (!o.isCurrent()) return;
    if (o.onStatus(s.status)) return;
    o.setAnswer({ tone: 'info', title: `Status: ${statusLabel(s.status)}`, detail: o.pendingDetail });
  } catch {
    if (!o.isCurrent()) return;
    o.setAnswer({ tone: 'warning', title: STATUS_FAILED, detail: 'Tente de novo em instantes; seguimos consultando sozinhos.' });
  } finally {
    if (o.isCurrent()) o.setChecking(false);
  }
}
