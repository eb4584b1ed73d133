import { useCallback, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { App } from 'antd';
import { PixDialog } from '../purchase/PixDialog';
import { checkPixNow, usePixStatusPoll } from '../purchase/usePixStatusPoll';
import type { PixAnswer } from '../purchase/PixDialog';
import { isApproved, isDead, statusLabel, type PixPayment } from '../purchase/purchaseApi';
import { accountApi } from './accountApi';
import { formatNumberList } from './format';
import { drawLabel, type ParticipationRow } from './participations';
import { payParticipation, pixErrorText } from './payFlow';

/** Storefront spec §9: the payment status is polled every 3 s while the PIX dialog is open. */
export const APPROVED_MESSAGE = 'Pagamento aprovado! Seus números estão garantidos.';

/**
 * 'Gerar PIX' of /conta (account spec §4 pay flow): runs the flow for a row, shows the purchase's
 * PIX dialog (copy code, status checks every 3 s and on 'Já paguei'), and calls `onChange`
 * when the payment is approved or the attempt failed (the page then reloads its rows and syncs the
 * coupon balance).
 */
export function usePixPay(onChange: () => void): {
  pay(row: ParticipationRow): void;
  /** Key of the row whose PIX is being generated ('Gerando PIX…'). */
  generating: string | null;
  dialog: ReactNode;
} {
  const { modal, message } = App.useApp();
  const [generating, setGenerating] = useState<string | null>(null);
  const [payment, setPayment] = useState<PixPayment | null>(null);
  const [summary, setSummary] = useState('');
  const [checking, setChecking] = useState(false);
  const [pollFailing, setPollFailing] = useState(false);
  const [deadStatus, setDeadStatus] = useState<string | null>(null);
  const [answer, setAnswer] = useState<PixAnswer | null>(null);
  /** The row being paid ('Gerar novo código' pays it again). */
  const lastRow = useRef<ParticipationRow | null>(null);
  /** Bumped when the dialog closes: answers for an older payment are dropped. */
  const session = useRef(0);
  const onChangeRef = useRef(onChange);
  useLayoutEffect(() => {
    onChangeRef.current = onChange;
  });

  const close = useCallback(() => {
    session.current++;
    setPayment(null);
    setChecking(false);
    setPollFailing(false);
    setDeadStatus(null);
    setAnswer(null);
  }, []);

  const approved = useCallback(() => {
    close();
    message.success(APPROVED_MESSAGE);
    onChangeRef.current();
  }, [close, message]);

  /** True when the status ended the dialog (approved). */
  const onStatus = useCallback(
    (status: string) => {
      if (isApproved(status)) {
        approved();
        return true;
      }
      if (isDead(status)) setDeadStatus(statusLabel(status));
      return false;
    },
    [approved],
  );

  const pay = useCallback(
    (row: ParticipationRow) => {
      if (generating) return;
      const mine = ++session.current;
      lastRow.current = row;
      setAnswer(null);
      setDeadStatus(null);
      setGenerating(row.key);
      void payParticipation(
        {
          reservations: () => accountApi.activeReservations(),
          payments: () => accountApi.payments(),
          createPix: (id) => accountApi.pixForReservation(id),
          now: () => Date.now(),
        },
        row.drawId,
        row.pendingNumbers,
      )
        .then((p) => {
          if (session.current !== mine) return;
          const title = row.draw?.title ? ` · ${row.draw.title}` : '';
          setSummary(`Números ${formatNumberList(row.pendingNumbers)} do ${drawLabel(row.drawId).toLowerCase()}${title}`);
          setPayment(p);
          if (isApproved(p.status)) approved();
        })
        .catch((err) => {
          if (session.current !== mine) return;
          const { title, detail } = pixErrorText(err);
          modal.error({ title, content: detail ?? undefined, centered: true });
          // The row may be stale (its hold ended): show the current state.
          onChangeRef.current();
        })
        .finally(() => setGenerating(null));
    },
    [generating, modal, approved],
  );

  // Status check every 3 s while the dialog is open (as in the purchase flow).
  usePixStatusPoll({
    active: !!payment && !deadStatus,
    paymentId: payment ? (payment.paymentId ?? payment.id) : null,
    fetchStatus: accountApi.paymentStatus,
    onStatus,
    setPollFailing,
  });

  const paid = useCallback(async () => {
    if (!payment) return;
    const mine = session.current;
    await checkPixNow({
      paymentId: payment.paymentId ?? payment.id,
      isCurrent: () => session.current === mine,
      fetchStatus: accountApi.paymentStatus,
      onStatus,
      setChecking,
      setAnswer,
      pendingDetail: 'Assim que o pagamento for confirmado, seus números aparecem como PAGO nesta página.',
    });
  }, [payment, onStatus]);

  const dialog = (
    <PixDialog
      open={!!payment}
      payment={payment}
      summary={summary}
      checking={checking}
      pollFailing={pollFailing}
      deadStatus={deadStatus}
      answer={answer}
      onPaid={() => void paid()}
      onRenew={() => {
        const row = lastRow.current;
        close();
        if (row) pay(row);
      }}
      onCancel={close}
    />
  );

  return { pay, generating, dialog };
}
