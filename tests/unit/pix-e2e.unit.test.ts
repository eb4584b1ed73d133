import { pixEndToEndId, sandboxEndToEndId } from '../../src/payments/providers/e2e';
import { proofOfPayment, receiptFields, type ReceiptView } from '../../src/shared/receipt';

describe('the PIX end-to-end id (RULES P13)', () => {
  it('drops the "PIX" prefix Mercado Pago writes, so the id reads as on the bank receipt', () => {
    expect(pixEndToEndId('PIXE00360305202607260140c5589350187')).toBe('E00360305202607260140c5589350187');
    expect(pixEndToEndId('E00360305202607260140c5589350187')).toBe('E00360305202607260140c5589350187');
    expect(pixEndToEndId(' e00360305202607260140c5589350187 ')).toBe('E00360305202607260140c5589350187');
  });

  it('keeps another plain id, and refuses anything that is not one', () => {
    expect(pixEndToEndId('ABC123')).toBe('ABC123');
    expect(pixEndToEndId(null)).toBeNull();
    expect(pixEndToEndId(undefined)).toBeNull();
    expect(pixEndToEndId('')).toBeNull();
    expect(pixEndToEndId('<script>')).toBeNull();
    expect(pixEndToEndId('x'.repeat(65))).toBeNull();
  });

  it("the sandbox's id has the BCB shape: E + ISPB + yyyyMMddHHmm + 11 characters", () => {
    const id = sandboxEndToEndId(new Date('2026-11-28T12:34:56Z'), 'sbx_0123456789abcdef');
    expect(id).toMatch(/^E00000000202611281234[0-9A-Za-z]{11}$/);
    expect(pixEndToEndId(id)).toBe(id);
  });
});

describe("the receipt's proof of payment", () => {
  const r: ReceiptView = {
    payment_id: 9,
    provider_transaction_id: '123456',
    txid: 'T1',
    e2e_id: 'E00360305202607260140c5589350187',
    amount_cents: 1000,
    paid_at: '2026-11-28T12:00:00Z',
    method: 'pix',
    description: '1 e-book',
  };
  it('is the end-to-end id when there is one, else the provider transaction id', () => {
    expect(proofOfPayment(r)).toEqual({ label: 'ID da transação PIX (E2E)', value: r.e2e_id });
    expect(proofOfPayment({ ...r, e2e_id: null })).toEqual({ label: 'Transação no provedor', value: '123456' });
    expect(proofOfPayment({ e2e_id: null, provider_transaction_id: null })).toBeNull();
  });
  it('the receipt lists the end-to-end id before the provider id, and not at all when unknown', () => {
    const labels = receiptFields(r).map(([k]) => k);
    expect(labels.indexOf('ID da transação PIX (E2E)')).toBeLessThan(labels.indexOf('Transação no provedor'));
    expect(receiptFields({ ...r, e2e_id: null }).map(([k]) => k)).not.toContain('ID da transação PIX (E2E)');
  });
});
