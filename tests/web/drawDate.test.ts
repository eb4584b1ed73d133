import dayjs from 'dayjs';
import { DRAW_NOTE_DAYS, expectedDrawDate } from '../../web/src/pages/home/drawDate';

describe('expectedDrawDate (the storefront draw-date note)', () => {
  test('a week after the given day, across month and year ends', () => {
    expect(DRAW_NOTE_DAYS).toBe(7);
    expect(expectedDrawDate(dayjs('2026-06-15')).format('YYYY-MM-DD')).toBe('2026-06-22');
    expect(expectedDrawDate(dayjs('2026-02-25')).format('YYYY-MM-DD')).toBe('2026-03-04');
    expect(expectedDrawDate(dayjs('2026-12-28')).format('YYYY-MM-DD')).toBe('2027-01-04');
  });

  test('without an argument it counts from today', () => {
    jest.useFakeTimers({ now: new Date(2026, 5, 15, 12, 0, 0) });
    try {
      expect(expectedDrawDate().format('YYYY-MM-DD')).toBe('2026-06-22');
    } finally {
      jest.useRealTimers();
    }
  });
});
