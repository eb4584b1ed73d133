/** Input parsing of the customer registry (pure: no API import, unit-tested in tests/web/adminUsers.test.ts). */

/** Numbers typed by the admin: split on commas, spaces or semicolons (account spec §5). */
export function parseNumbers(text: string): number[] | null {
  const parts = text.split(/[\s,;]+/).filter(Boolean);
  if (!parts.length || parts.some((p) => !/^\d{1,3}$/.test(p))) return null;
  return [...new Set(parts.map(Number))];
}

/** Reais as typed ('12,50', '12.5', 'R$ 1.234,56') → cents; null when not a valid amount. */
export function reaisToCents(text: string | number | null | undefined): number | null {
  if (text == null || text === '') return 0;
  if (typeof text === 'number') return Number.isFinite(text) && text >= 0 ? Math.round(text * 100) : null;
  let s = text.replace(/R\$|\s/g, '');
  if (s.includes(',')) s = s.replace(/\./g, '').replace(',', '.');
  if (!/^\d+(\.\d{1,2})?$/.test(s)) return null;
  return Math.round(Number(s) * 100);
}
