import { claimDeadline, claimFor, deadlineText, formatWhatsapp, prizeOf, whatsappUrl } from '../../src/shared/prize';

describe('the claim deadline (terms: 90 days from the result)', () => {
  it('ends at 23:59 Brasília of the 90th day after the day the result was recorded', () => {
    // 28/11/2026 20:30 in Brasília → 26/02/2027 23:59:59.999 Brasília (02:59:59.999Z the day after).
    expect(claimDeadline('2026-11-28T23:30:00Z').toISOString()).toBe('2027-02-27T02:59:59.999Z');
    // 22:00 in Brasília is already the 29th in UTC, still the 28th there: the same deadline.
    expect(claimDeadline('2026-11-29T01:00:00Z').toISOString()).toBe('2027-02-27T02:59:59.999Z');
    expect(deadlineText(claimDeadline('2026-11-28T23:30:00Z'))).toBe('até 26/02/2027 (23h59, horário de Brasília)');
  });

  it('counts whole days left, 0 and expired once past', () => {
    const contact = { whatsapp: null, email: null };
    const at = new Date('2026-11-28T23:30:00Z');
    expect(claimFor({ realized_at: at, redeemed: false }, contact, at)).toMatchObject({ days_left: 90, expired: false });
    expect(claimFor({ realized_at: at, redeemed: false }, contact, new Date('2027-02-27T02:59:59.998Z'))).toMatchObject({
      days_left: 0,
      expired: false,
    });
    expect(claimFor({ realized_at: at, redeemed: true }, contact, new Date('2027-02-27T03:00:00Z'))).toMatchObject({
      days_left: 0,
      expired: true,
      redeemed: true,
    });
  });
});

describe('the prize and the contact in words', () => {
  it("names the admin's item, else the draw's prize; only http(s) links", () => {
    const d = { title: 'Sorteio X', prize_cents: 50_000, product_name: null, product_link: 'javascript:alert(1)' };
    expect(prizeOf(d)).toEqual({ name: 'Prêmio do sorteio “Sorteio X”', amount_cents: 50_000, link: null });
    expect(prizeOf({ ...d, product_name: ' Galaxy ', product_link: 'https://a.example/x' })).toEqual({
      name: 'Galaxy',
      amount_cents: 50_000,
      link: 'https://a.example/x',
    });
  });
  it('writes WhatsApp numbers as Brazilians read them and links them to wa.me', () => {
    expect(formatWhatsapp('5541998765432')).toBe('+55 (41) 99876-5432');
    expect(formatWhatsapp('554132345678')).toBe('+55 (41) 3234-5678');
    expect(whatsappUrl('5541998765432', 7)).toMatch(/^https:\/\/wa\.me\/5541998765432\?text=Ol%C3%A1!.*Sorteio%20%23007/);
  });
});
