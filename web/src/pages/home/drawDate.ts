import dayjs, { type Dayjs } from 'dayjs';

/** The draw-date note of the storefront: today plus 7 days (storefront spec §2 Home). */
export const DRAW_NOTE_DAYS = 7;

export function expectedDrawDate(today: Dayjs = dayjs()): Dayjs {
  return today.add(DRAW_NOTE_DAYS, 'day');
}
