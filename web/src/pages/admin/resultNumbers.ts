/** The 20 numbers of a Lotomania result as the 'Registrar resultado' dialog reads them (the server checks again). */

/** "07 64 2, 53" → [7, 64, 2, 53]; null when a piece is not a number 00-99. */
export function parseNumbers(text: string): number[] | null {
  const parts = text.split(/[\s,;-]+/).filter(Boolean);
  if (parts.some((p) => !/^\d{1,2}$/.test(p))) return null;
  return parts.map(Number);
}

/** What the dialog checks before asking the server (which checks again). */
export function numbersProblem(nums: number[] | null): string | null {
  if (!nums) return 'Cada número deve estar entre 00 e 99.';
  if (nums.length !== 20) return `Informe exatamente 20 números (recebidos: ${nums.length}).`;
  if (new Set(nums).size !== 20) return 'Os 20 números devem ser distintos.';
  return null;
}
