/** Storefront spec §5 and §9: 1 to 20 e-books per purchase. */
export const MIN_QUANTITY = 1;
export const MAX_QUANTITY = 20;

export function clampQuantity(q: number): number {
  if (!Number.isFinite(q)) return MIN_QUANTITY;
  return Math.min(MAX_QUANTITY, Math.max(MIN_QUANTITY, Math.trunc(q)));
}

export const LIMIT_TEXT = 'Limite: até 20 unidades por compra';

/**
 * What the quantity field holds after a keystroke: digits only; above 20 it becomes 20 (and says
 * so: overLimit); empty or 0 is not a quantity (null: Pagar waits for one).
 */
export function readQuantity(raw: string): { text: string; quantity: number | null; overLimit: boolean } {
  const digits = raw
    .replace(/\D+/g, '')
    .replace(/^0+(?=\d)/, '')
    .slice(0, 6);
  if (!digits) return { text: '', quantity: null, overLimit: false };
  const n = Number(digits);
  if (n > MAX_QUANTITY) return { text: String(MAX_QUANTITY), quantity: MAX_QUANTITY, overLimit: true };
  if (n < MIN_QUANTITY) return { text: digits, quantity: null, overLimit: false };
  return { text: digits, quantity: n, overLimit: false };
}
