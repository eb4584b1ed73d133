/** Money as the console's forms type it (prices in reais, stored in cents by the server). */

/** Cents → the text typed in the form ('19,90'), or '' for none. */
export const centsToReais = (c: number | null | undefined) => (c == null ? '' : (c / 100).toFixed(2).replace('.', ','));

/**
 * 'R$ 19,90', '19.90', '1.234,56': the reais texts the server accepts (src/catalogue/admin.ts
 * reaisToCents); tests/web/admin-money.test.ts keeps the two in step.
 */
export const REAIS_RE = /^\s*(R\$\s*)?(\d{1,3}(\.\d{3})*(,\d{1,2})?|\d+([.,]\d{1,2})?)\s*$/i;
