/** Storefront spec §5 and §9: 1 to 20 e-books per purchase. */
export const MIN_QUANTITY = 1;
export const MAX_QUANTITY = 20;

export function clampQuantity(q: number): number {
  if (!Number.isFinite(q)) return MIN_QUANTITY;
  return Math.min(MAX_QUANTITY, Math.max(MIN_QUANTITY, Math.trunc(q)));
}
