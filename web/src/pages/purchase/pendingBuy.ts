/**
 * A purchase interrupted by the sign-in (storefront spec §5): the buy button sends an anonymous
 * visitor to /login with state {redirectTo, pendingBuy, message}; /login hands pendingBuy back to
 * `redirectTo`, whose page reopens the quantity dialog. A copy also waits in sessionStorage, so the
 * purchase survives a detour through /cadastro (the sign-up page does not carry the state along).
 */
export interface PendingBuy {
  productId: number;
  priceCents: number | null;
}

interface Stored extends PendingBuy {
  returnTo: string;
  at: number;
}

const KEY = 'cv_pending_buy';
/** A purchase abandoned for longer than this is not resumed by surprise. */
const MAX_AGE_MS = 30 * 60 * 1000;

export function isPendingBuy(v: unknown): v is PendingBuy {
  if (!v || typeof v !== 'object') return false;
  const p = v as Record<string, unknown>;
  return Number.isInteger(p.productId) && (p.productId as number) > 0 && (p.priceCents == null || typeof p.priceCents === 'number');
}

export function savePendingBuy(pending: PendingBuy, returnTo: string): void {
  try {
    window.sessionStorage.setItem(KEY, JSON.stringify({ ...pending, returnTo, at: Date.now() } satisfies Stored));
  } catch {
    /* storage unavailable: the navigation state still carries it */
  }
}

export function clearPendingBuy(): void {
  try {
    window.sessionStorage.removeItem(KEY);
  } catch {
    /* ignore */
  }
}

/** The stored purchase meant for this page, if recent; removes it either way once read. */
export function takeStoredPendingBuy(pathname: string): PendingBuy | null {
  let raw: string | null = null;
  try {
    raw = window.sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
  if (!raw) return null;
  let stored: Partial<Stored> | null = null;
  try {
    stored = JSON.parse(raw) as Partial<Stored>;
  } catch {
    clearPendingBuy();
    return null;
  }
  if (!stored || stored.returnTo !== pathname) return null; // meant for another page: leave it there
  clearPendingBuy();
  const at = stored.at;
  if (!isPendingBuy(stored) || typeof at !== 'number' || Date.now() - at > MAX_AGE_MS) return null;
  return { productId: stored.productId, priceCents: stored.priceCents ?? null };
}

/** Whether a stored purchase waits for this page (read only: the purchase flow takes it). */
export function hasStoredPendingBuy(pathname: string): boolean {
  try {
    const raw = window.sessionStorage.getItem(KEY);
    return !!raw && (JSON.parse(raw) as Partial<Stored> | null)?.returnTo === pathname;
  } catch {
    return false;
  }
}
