import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { App } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { qk } from '../../query';
import { useLocation, useNavigate } from 'react-router-dom';
import { api, ApiError, errorMessage } from '../../api/client';
import type { Product, PublicConfig } from '../../api/types';
import { useAuth } from '../../auth/AuthContext';
import { formatBRL, unitPriceCents } from '../../components/product/format';
import { ApprovedDialog } from './ApprovedDialog';
import { clearPendingBuy, isPendingBuy, savePendingBuy, takeStoredPendingBuy, type PendingBuy } from './pendingBuy';
import { PixDialog, type PixAnswer } from './PixDialog';
import { checkPixNow, usePixStatusPoll } from './usePixStatusPoll';
import { isApproved, isDead, purchaseApi, statusLabel, type PixPayment } from './purchaseApi';
import { clampQuantity } from './quantity';
import { QuantityDialog } from './QuantityDialog';

/** Storefront spec §9. */
export const NAVIGATION_DELAY_MS = 600;
const CREEP_MS = 400;
const CREEP_STEP = 5;
const CREEP_MAX = 90;

const START_FAILED = 'Não foi possível iniciar o pagamento agora.';
const LOGIN_REQUIRED = 'Para comprar e-books é necessário estar autenticado.';
const LOGIN_MESSAGE = 'Faça login para comprar o e-book.';
/** Nothing is picked yet: the payment brings the e-books and the right to choose numbers. */
const PAID_INFO =
  'Assim que o pagamento for confirmado, você recebe os e-books e o direito de escolher seus números na tabela.';

/** What /numeros receives after an approved purchase (storefront spec §2 Home). */
export interface NumbersNavigationState {
  drawId: number | null;
  paymentId: number;
  product: Product;
}

interface Target {
  product: Product;
  unitPriceCents: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The product without its board or draw history (they do not belong in the browser history). */
function productForState(product: Product): Product {
  const copy = { ...product } as Product & { numbers?: unknown; draws?: unknown };
  delete copy.numbers;
  delete copy.draws;
  return copy;
}

/**
 * The purchase flow (storefront spec §4 "Purchase flow", §5, §8): login check, quantity dialog,
 * PIX dialog with a status poll every 3 s, then the non-closable 'Pagamento aprovado' dialog and
 * /numeros. `returnTo` is the page /login brings the customer back to, where the purchase resumes.
 *
 * Returns `buy(product, unitPriceCents)`, the dialogs to render, and the id of a product whose
 * purchase is being prepared (resuming after sign-in).
 */
export function usePurchase({ returnTo }: { returnTo: string }): {
  buy(product: Product, unitPriceCents: number | null): void;
  dialogs: ReactNode;
  preparingId: number | null;
} {
  const { modal } = App.useApp();
  const queryClient = useQueryClient();
  const { isAuthenticated, loading: authLoading, logout } = useAuth();
  const navigate = useNavigate();
  const location = useLocation();

  const [target, setTarget] = useState<Target | null>(null);
  const [quantity, setQuantity] = useState(1);
  const [qtyOpen, setQtyOpen] = useState(false);
  const [pixOpen, setPixOpen] = useState(false);
  const [payment, setPayment] = useState<PixPayment | null>(null);
  const [paidQuantity, setPaidQuantity] = useState(1);
  const [checking, setChecking] = useState(false);
  const [pollFailing, setPollFailing] = useState(false);
  const [deadStatus, setDeadStatus] = useState<string | null>(null);
  const [answer, setAnswer] = useState<PixAnswer | null>(null);
  const [progress, setProgress] = useState<{ step: number; percent: number } | null>(null);
  const [preparingId, setPreparingId] = useState<number | null>(null);

  /** Bumped whenever the PIX dialog closes: answers that belong to an older payment are dropped. */
  const session = useRef(0);
  /** The approval of a payment is processed once, whichever check saw it first. */
  const approvalStarted = useRef(false);
  const mounted = useRef(true);
  const creep = useRef<ReturnType<typeof setInterval> | null>(null);

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
      if (creep.current) clearInterval(creep.current);
    };
  }, []);

  const askLogin = useCallback(
    (pending: PendingBuy) => {
      savePendingBuy(pending, returnTo);
      modal.warning({
        title: LOGIN_REQUIRED,
        okText: 'Fazer login',
        centered: true,
        afterClose: () =>
          navigate('/login', { state: { redirectTo: returnTo, pendingBuy: pending, message: LOGIN_MESSAGE } }),
      });
    },
    [modal, navigate, returnTo],
  );

  const openQuantity = useCallback(
    async (product: Product, unit: number | null) => {
      let price = unit;
      if (price == null) {
        // No price on the product or its draw: the store-wide ticket price applies.
        setPreparingId(product.id);
        try {
          price = (await api.get<PublicConfig>('/api/config')).ticket_price_cents;
        } catch (err) {
          modal.warning({ title: START_FAILED, content: errorMessage(err, '') || undefined, centered: true });
          return;
        } finally {
          setPreparingId(null);
        }
      }
      setTarget({ product, unitPriceCents: price });
      setQuantity(1);
      setQtyOpen(true);
    },
    [modal],
  );

  const buy = useCallback(
    (product: Product, unit: number | null) => {
      if (!isAuthenticated) {
        askLogin({ productId: product.id, priceCents: unit });
        return;
      }
      void openQuantity(product, unit);
    },
    [isAuthenticated, askLogin, openQuantity],
  );

  /** Closing the PIX dialog resets the payment state (storefront spec §4). */
  const closePix = useCallback(() => {
    session.current++;
    setPixOpen(false);
    setPayment(null);
    setChecking(false);
    setPollFailing(false);
    setDeadStatus(null);
    setAnswer(null);
  }, []);

  /** Step 5 and 6: confirm the purchase, make sure a draw is open, then go pick the numbers. */
  const startApproved = useCallback(
    async (p: PixPayment, t: Target) => {
      if (approvalStarted.current) return;
      approvalStarted.current = true;
      closePix();
      // What the approval changed, wherever it is shown: vouchers left, /conta's rows and balance.
      for (const queryKey of [['allowance'], qk.participations, qk.coupon]) void queryClient.invalidateQueries({ queryKey });
      setProgress({ step: 0, percent: 10 });
      creep.current = setInterval(
        () => setProgress((pr) => (pr && pr.percent < CREEP_MAX ? { ...pr, percent: Math.min(CREEP_MAX, pr.percent + CREEP_STEP) } : pr)),
        CREEP_MS,
      );
      const paymentId = p.paymentId ?? p.id;
      let drawId: number | null = t.product.draw?.id ?? null;

      setProgress((pr) => ({ step: 1, percent: pr?.percent ?? 10 }));
      try {
        const c = await purchaseApi.confirm(paymentId, t.product.id);
        drawId = c.draw_id ?? c.drawId ?? drawId;
      } catch (err) {
        // Only logged (spec §4): the approval already granted the vouchers on the server.
        const code = err instanceof ApiError ? `${err.code || `purchases_confirm_${err.status}`}` : String(err);
        console.error('[compra] confirmação da compra falhou:', code);
      }
      setProgress((pr) => ({ step: 2, percent: Math.max(pr?.percent ?? 0, 40) }));

      try {
        const d = await purchaseApi.ensureOpenDraw(t.product.sku || t.product.id);
        drawId = d.draw_id ?? d.id ?? drawId;
      } catch {
        // Ignored (spec §4): /numeros finds the open draw by itself.
      }
      setProgress((pr) => ({ step: 2, percent: Math.max(pr?.percent ?? 0, 75) }));

      if (creep.current) clearInterval(creep.current);
      creep.current = null;
      setProgress({ step: 3, percent: 100 });
      await sleep(NAVIGATION_DELAY_MS);
      if (!mounted.current) return;
      const state: NumbersNavigationState = { drawId, paymentId, product: productForState(t.product) };
      navigate('/numeros', { state });
    },
    [closePix, navigate, queryClient],
  );

  /** Step 3: create the PIX charge for quantity × unit price. */
  const pay = useCallback(async () => {
    const t = target;
    if (!t) return;
    const q = clampQuantity(quantity);
    const total = t.unitPriceCents * q;
    setQtyOpen(false);
    const mine = ++session.current;
    approvalStarted.current = false;
    setPayment(null);
    setDeadStatus(null);
    setPollFailing(false);
    setAnswer(null);
    setPaidQuantity(q);
    setPixOpen(true);
    try {
      const p = await purchaseApi.createPayment(t.product.id, q, total);
      if (session.current !== mine) return;
      setPayment(p);
      if (isApproved(p.status)) void startApproved(p, t);
    } catch (err) {
      if (session.current !== mine) return;
      closePix();
      if (err instanceof ApiError && err.status === 401) {
        // The session ended on the server: sign in again, then the purchase resumes.
        await logout();
        askLogin({ productId: t.product.id, priceCents: t.unitPriceCents });
        return;
      }
      if (err instanceof ApiError && err.code === 'price_changed') {
        const body = (err.body ?? {}) as { amount_cents_total?: unknown; unit_price_cents?: unknown };
        const newTotal = typeof body.amount_cents_total === 'number' ? body.amount_cents_total : null;
        const newUnit =
          typeof body.unit_price_cents === 'number' ? body.unit_price_cents : newTotal != null ? Math.round(newTotal / q) : null;
        modal.warning({
          title: START_FAILED,
          centered: true,
          okText: 'Rever a compra',
          content: (
            <>
              <p>{err.message}</p>
              {newTotal != null && (
                <p>
                  Novo total: <strong>{formatBRL(newTotal)}</strong>
                  {newUnit != null && ` (${q} × ${formatBRL(newUnit)})`}
                </p>
              )}
            </>
          ),
          // Back to the quantity dialog with the new price, ready to try again.
          afterClose: () => {
            if (!mounted.current || newUnit == null) return;
            setTarget({ product: t.product, unitPriceCents: newUnit });
            setQuantity(q);
            setQtyOpen(true);
          },
        });
        return;
      }
      const detail = errorMessage(err, '');
      modal.warning({ title: START_FAILED, content: detail && detail !== START_FAILED ? detail : undefined, centered: true });
    }
  }, [target, quantity, startApproved, closePix, logout, askLogin, modal]);

  const onStatus = useCallback(
    (p: PixPayment, status: string) => {
      if (isApproved(status) && target) {
        void startApproved(p, target);
        return true;
      }
      if (isDead(status)) setDeadStatus(statusLabel(status));
      return false;
    },
    [target, startApproved],
  );

  /** Step 4: ask for the status every 3 s while the PIX dialog is open. */
  const onPolledStatus = useCallback((status: string) => (payment ? onStatus(payment, status) : true), [payment, onStatus]);
  usePixStatusPoll({
    active: pixOpen && !!payment && !deadStatus,
    paymentId: payment ? (payment.paymentId ?? payment.id) : null,
    fetchStatus: purchaseApi.status,
    onStatus: onPolledStatus,
    setPollFailing,
  });

  /** 'Já paguei': an immediate status check. */
  const paid = useCallback(async () => {
    if (!payment) return;
    await checkPixNow({
      paymentId: payment.paymentId ?? payment.id,
      session,
      fetchStatus: purchaseApi.status,
      onStatus: (status) => onStatus(payment, status),
      setChecking,
      setAnswer,
      pendingDetail: PAID_INFO,
    });
  }, [payment, onStatus]);

  /** Resume a purchase interrupted by the sign-in (navigation state from /login, or sessionStorage). */
  const resumedFor = useRef<string | null>(null);
  useEffect(() => {
    if (authLoading || !isAuthenticated || resumedFor.current === location.key) return;
    const navState = (location.state ?? null) as Record<string, unknown> | null;
    const fromState = navState?.pendingBuy;
    const stored = takeStoredPendingBuy(location.pathname);
    const pending = isPendingBuy(fromState) ? fromState : stored;
    if (!pending) return;
    resumedFor.current = location.key;
    clearPendingBuy();
    if (navState && 'pendingBuy' in navState) {
      // A reload of this page must not reopen the dialog.
      const rest = { ...navState };
      delete rest.pendingBuy;
      navigate(`${location.pathname}${location.search}${location.hash}`, {
        replace: true,
        state: Object.keys(rest).length ? rest : null,
      });
    }
    void (async () => {
      setPreparingId(pending.productId);
      let product: Product;
      try {
        product = await purchaseApi.product(pending.productId);
      } catch (err) {
        setPreparingId(null);
        modal.warning({
          title: 'Não foi possível retomar a sua compra.',
          content: errorMessage(err, 'Tente comprar o e-book de novo.'),
          centered: true,
        });
        return;
      }
      setPreparingId(null);
      if (!mounted.current) return;
      await openQuantity(product, unitPriceCents(product, product.draw) ?? pending.priceCents);
    })();
  }, [authLoading, isAuthenticated, location, navigate, modal, openQuantity]);

  const dialogs = (
    <>
      <QuantityDialog
        open={qtyOpen && !!target}
        title={target?.product.title || 'E-book'}
        unitPriceCents={target?.unitPriceCents ?? 0}
        quantity={quantity}
        onChange={setQuantity}
        onCancel={() => setQtyOpen(false)}
        onConfirm={() => void pay()}
      />
      <PixDialog
        open={pixOpen}
        payment={payment}
        summary={`${paidQuantity} ${paidQuantity === 1 ? 'e-book' : 'e-books'} · ${target?.product.title || 'E-book'}`}
        checking={checking}
        pollFailing={pollFailing}
        deadStatus={deadStatus}
        answer={answer}
        onPaid={() => void paid()}
        onRenew={() => void pay()}
        onCancel={closePix}
      />
      <ApprovedDialog open={!!progress} step={progress?.step ?? 0} percent={progress?.percent ?? 0} />
    </>
  );

  return { buy, dialogs, preparingId };
}
