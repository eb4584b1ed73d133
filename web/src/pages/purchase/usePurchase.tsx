import { useCallback, useEffect, useReducer, useRef, type ReactNode } from 'react';
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
import { PixDialog } from './PixDialog';
import { checkPixNow, usePixStatusPoll } from './usePixStatusPoll';
import { isApproved, isDead, purchaseApi, statusLabel } from './purchaseApi';
import { clampQuantity } from './quantity';
import { initialPurchase, purchaseReducer, type PurchaseEvent } from './purchaseMachine';
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
const PAID_INFO = 'Assim que o pagamento for confirmado, você recebe os e-books e o direito de escolher seus números na tabela.';

/** What /numeros receives after an approved purchase (storefront spec §2 Home). */
export interface NumbersNavigationState {
  drawId: number | null;
  paymentId: number;
  product: Product;
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

  // One state machine (purchaseMachine.ts); `current` follows it synchronously for the async steps.
  const [state, react] = useReducer(purchaseReducer, initialPurchase);
  const current = useRef(state);
  const dispatch = useCallback((e: PurchaseEvent) => {
    current.current = purchaseReducer(current.current, e);
    react(e);
  }, []);
  const step = state.step;

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
        afterClose: () => navigate('/login', { state: { redirectTo: returnTo, pendingBuy: pending, message: LOGIN_MESSAGE } }),
      });
    },
    [modal, navigate, returnTo],
  );

  const openQuantity = useCallback(
    async (product: Product, unit: number | null) => {
      let price = unit;
      if (price == null) {
        // No price on the product or its draw: the store-wide ticket price applies.
        dispatch({ type: 'preparing', productId: product.id });
        try {
          price = (await api.get<PublicConfig>('/api/config')).ticket_price_cents;
        } catch (err) {
          dispatch({ type: 'preparing', productId: null });
          modal.warning({ title: START_FAILED, content: errorMessage(err, '') || undefined, centered: true });
          return;
        }
      }
      dispatch({ type: 'open-quantity', target: { product, unitPriceCents: price } });
    },
    [modal, dispatch],
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

  /** Closing a dialog resets the payment state (storefront spec §4). */
  const close = useCallback(() => dispatch({ type: 'close' }), [dispatch]);

  /** Step 5 and 6: confirm the purchase, make sure a draw is open, then go pick the numbers. */
  const startApproved = useCallback(
    async (session: number) => {
      const before = current.current;
      dispatch({ type: 'approved', session });
      const now = current.current.step;
      if (now.kind !== 'approved' || before.step.kind !== 'pix') return; // already under way, or another dialog
      const { target: t, payment: p } = now;
      // What the approval changed, wherever it is shown: vouchers left, /conta's rows and balance.
      for (const queryKey of [['allowance'], qk.participations, qk.coupon]) void queryClient.invalidateQueries({ queryKey });
      creep.current = setInterval(() => dispatch({ type: 'creep', step: CREEP_STEP, max: CREEP_MAX }), CREEP_MS);
      const paymentId = p.paymentId ?? p.id;
      let drawId: number | null = t.product.draw?.id ?? null;

      dispatch({ type: 'progress', step: 1, percent: 10 });
      try {
        const c = await purchaseApi.confirm(paymentId, t.product.id);
        drawId = c.draw_id ?? c.drawId ?? drawId;
      } catch (err) {
        // Only logged (storefront spec §4): the approval already granted the vouchers on the server.
        const code = err instanceof ApiError ? `${err.code || `purchases_confirm_${err.status}`}` : String(err);
        console.error('[compra] confirmação da compra falhou:', code);
      }
      dispatch({ type: 'progress', step: 2, percent: 40 });

      try {
        const d = await purchaseApi.ensureOpenDraw(t.product.sku || t.product.id);
        drawId = d.draw_id ?? d.id ?? drawId;
      } catch {
        // Ignored (storefront spec §4): /numeros finds the open draw by itself.
      }
      dispatch({ type: 'progress', step: 2, percent: 75 });

      if (creep.current) clearInterval(creep.current);
      creep.current = null;
      dispatch({ type: 'progress', step: 3, percent: 100 });
      await sleep(NAVIGATION_DELAY_MS);
      if (!mounted.current) return;
      dispatch({ type: 'close' });
      const navState: NumbersNavigationState = { drawId, paymentId, product: productForState(t.product) };
      navigate('/numeros', { state: navState });
    },
    [navigate, queryClient, dispatch],
  );

  /** Step 3: create the PIX charge for quantity × unit price (also 'Gerar novo código'). */
  const pay = useCallback(async () => {
    const s = current.current.step;
    if (s.kind !== 'quantity' && s.kind !== 'pix') return;
    const t = s.target;
    const q = clampQuantity(s.quantity);
    const total = t.unitPriceCents * q;
    dispatch({ type: 'pay' });
    const mine = current.current.session;
    try {
      const p = await purchaseApi.createPayment(t.product.id, q, total);
      dispatch({ type: 'pix-created', session: mine, payment: p });
      if (isApproved(p.status)) void startApproved(mine);
    } catch (err) {
      if (current.current.session !== mine) return;
      dispatch({ type: 'pix-failed', session: mine });
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
            dispatch({ type: 'open-quantity', target: { product: t.product, unitPriceCents: newUnit }, quantity: q });
          },
        });
        return;
      }
      const detail = errorMessage(err, '');
      modal.warning({ title: START_FAILED, content: detail && detail !== START_FAILED ? detail : undefined, centered: true });
    }
  }, [startApproved, logout, askLogin, modal, dispatch]);

  /** A status answer for the PIX dialog of `session`: true when it settled the payment. */
  const onStatus = useCallback(
    (session: number, status: string) => {
      if (isApproved(status)) {
        void startApproved(session);
        return true;
      }
      if (isDead(status)) dispatch({ type: 'dead', session, status: statusLabel(status) });
      return false;
    },
    [startApproved, dispatch],
  );

  /** Step 4: ask for the status every 3 s while the PIX dialog is open. */
  const pix = step.kind === 'pix' ? step : null;
  const session = state.session;
  const onPolledStatus = useCallback((status: string) => onStatus(session, status), [onStatus, session]);
  const setPollFailing = useCallback((failing: boolean) => dispatch({ type: 'poll', session, failing }), [dispatch, session]);
  usePixStatusPoll({
    active: !!pix?.payment && !pix.deadStatus,
    paymentId: pix?.payment ? (pix.payment.paymentId ?? pix.payment.id) : null,
    fetchStatus: purchaseApi.status,
    onStatus: onPolledStatus,
    setPollFailing,
  });

  /** 'Já paguei': an immediate status check, answered inside the PIX dialog. */
  const paid = useCallback(async () => {
    const s = current.current;
    if (s.step.kind !== 'pix' || !s.step.payment) return;
    const mine = s.session;
    await checkPixNow({
      paymentId: s.step.payment.paymentId ?? s.step.payment.id,
      isCurrent: () => current.current.session === mine,
      fetchStatus: purchaseApi.status,
      onStatus: (status) => onStatus(mine, status),
      setChecking: (checking) => dispatch(checking ? { type: 'check-started', session: mine } : { type: 'check-finished', session: mine }),
      setAnswer: (answer) => dispatch({ type: 'check-answered', session: mine, answer }),
      pendingDetail: PAID_INFO,
    });
  }, [onStatus, dispatch]);

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
      dispatch({ type: 'preparing', productId: pending.productId });
      let product: Product;
      try {
        product = await purchaseApi.product(pending.productId);
      } catch (err) {
        dispatch({ type: 'preparing', productId: null });
        modal.warning({
          title: 'Não foi possível retomar a sua compra.',
          content: errorMessage(err, 'Tente comprar o e-book de novo.'),
          centered: true,
        });
        return;
      }
      dispatch({ type: 'preparing', productId: null });
      if (!mounted.current) return;
      await openQuantity(product, unitPriceCents(product, product.draw) ?? pending.priceCents);
    })();
  }, [authLoading, isAuthenticated, location, navigate, modal, openQuantity, dispatch]);

  const qty = step.kind === 'quantity' ? step : null;
  const shown = step.kind === 'idle' ? null : step;
  const dialogs = (
    <>
      <QuantityDialog
        open={!!qty}
        title={shown?.target.product.title || 'E-book'}
        unitPriceCents={shown?.target.unitPriceCents ?? 0}
        quantity={qty?.quantity ?? 1}
        onChange={(quantity) => dispatch({ type: 'set-quantity', quantity })}
        onCancel={close}
        onConfirm={() => void pay()}
      />
      <PixDialog
        open={!!pix}
        payment={pix?.payment ?? null}
        summary={pix ? `${pix.quantity} ${pix.quantity === 1 ? 'e-book' : 'e-books'} · ${pix.target.product.title || 'E-book'}` : ''}
        checking={!!pix?.checking}
        pollFailing={!!pix?.pollFailing}
        deadStatus={pix?.deadStatus ?? null}
        answer={pix?.answer ?? null}
        onPaid={() => void paid()}
        onRenew={() => void pay()}
        onCancel={close}
      />
      <ApprovedDialog
        open={step.kind === 'approved'}
        step={step.kind === 'approved' ? step.step : 0}
        percent={step.kind === 'approved' ? step.percent : 0}
      />
    </>
  );

  return { buy, dialogs, preparingId: state.preparingId };
}
