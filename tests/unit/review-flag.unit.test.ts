/**
 * The code the admin payments list sends for a late approval (RULES P5): the server writes the
 * sentence `aprovado depois de <status>` as the stored review reason and sends it to the console as
 * `review_flag: {code: 'approved_after', status}`, which the console words. Pure: no servers.
 */
import { approvedAfterReason, reviewFlagOf } from '../../src/payments/state';
import { PAYMENT_STATUSES } from '../../src/shared/api/admin-payments';

describe('review_flag of a stored review reason', () => {
  it.each(PAYMENT_STATUSES.map((s) => [s]))('the sentence written for %s reads back as its code', (status) => {
    expect(reviewFlagOf(approvedAfterReason(status))).toEqual({ code: 'approved_after', status });
  });

  it('keeps the stored sentence the CLI prints', () => {
    expect(approvedAfterReason('expired')).toBe('aprovado depois de expired');
  });

  it.each([
    [null],
    [undefined],
    [''],
    ['estorno (refunded)'],
    ['valor pago diferente do cobrado'],
    ['aprovado depois de algo_desconhecido'],
    ['aprovado depois de expired (reembolsado)'],
    ['Aprovado depois de expired'],
    [' aprovado depois de expired'],
  ])('any other reason (%p) has no code', (reason) => {
    expect(reviewFlagOf(reason)).toBeNull();
  });
});
