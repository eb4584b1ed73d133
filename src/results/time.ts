/**
 * São Paulo time for the Lotomania calendar (RULES W1): contests are held Mon/Wed/Fri at 20:00
 * Brasília. Brasília has been UTC−3 all year since 2019 (no daylight saving time), so the offset is
 * fixed; it lives here and nowhere else.
 */

/** São Paulo's offset from UTC, in milliseconds (fixed: UTC−3). */
function saoPauloOffsetMs(): number {
  return -3 * 3600_000;
}

/** The instant of a São Paulo wall-clock time (month 0-based, as Date.UTC). */
export function saoPauloTime(year: number, month: number, day: number, hour: number): Date {
  return new Date(Date.UTC(year, month, day, hour) - saoPauloOffsetMs());
}

/** The São Paulo calendar date of an instant (month 0-based). */
export function saoPauloDate(at: Date): { year: number; month: number; day: number } {
  const local = new Date(at.getTime() + saoPauloOffsetMs());
  return { year: local.getUTCFullYear(), month: local.getUTCMonth(), day: local.getUTCDate() };
}

/** The last regular Lotomania slot (Mon/Wed/Fri 20:00 Brasília) strictly before the day of `d` in Brasília. */
export function previousScheduledContest(d: Date): Date {
  const local = saoPauloDate(d);
  const day = new Date(Date.UTC(local.year, local.month, local.day, 20));
  do day.setUTCDate(day.getUTCDate() - 1);
  while (![1, 3, 5].includes(day.getUTCDay()));
  return saoPauloTime(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), 20);
}
