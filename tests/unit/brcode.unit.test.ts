/**
 * The PIX BR Code (src/payments/brcode.ts), pure: EMV ID-length-value fields with BACEN's limits
 * (key ≤ 77, merchant name ≤ 25, city ≤ 15, txid 62-05 ≤ 25 of [A-Za-z0-9] or ***) and the
 * CRC16-CCITT-FALSE over everything up to "6304". The Central Bank's published examples and the
 * sandbox's codes are in tests/payments/brcode.test.ts; here, the rules case by case and over
 * generated inputs.
 */
import {
  BRCODE_LIMITS,
  TXID_RE,
  buildBrCode,
  crc16ccitt,
  hasValidCrc,
  parseBrCode,
  pixText,
  type BrCodeInput,
} from '../../src/payments/brcode';
import { TXID_LENGTH, newTxid } from '../../src/payments/providers/sandbox';
import { prng } from './prng';

/** Every top-level field in order, with its declared length and its value (the whole code read). */
function fields(code: string): Array<{ id: string; len: number; value: string }> {
  const out: Array<{ id: string; len: number; value: string }> = [];
  let i = 0;
  while (i < code.length) {
    const id = code.slice(i, i + 2);
    const len = Number(code.slice(i + 2, i + 4));
    out.push({ id, len, value: code.slice(i + 4, i + 4 + len) });
    i += 4 + len;
  }
  expect(i).toBe(code.length); // the lengths add up to the code, no byte left over
  return out;
}

const base: BrCodeInput = { key: 'loja@cotaverde.com.br', merchantName: 'COTA VERDE', merchantCity: 'SAO PAULO', txid: 'ABC123' };

describe('CRC16-CCITT-FALSE', () => {
  test.each([
    ['123456789', '29B1'], // the catalogue check value of CRC-16/CCITT-FALSE
    ['', 'FFFF'], // the initial value, nothing fed
    ['A', 'B915'],
    ['00020126', crc16ccitt('00020126')],
  ])('crc16(%j) = %s', (input, crc) => {
    expect(crc16ccitt(input)).toBe(crc);
  });

  test('always four upper-case hex digits, zero-padded', () => {
    const rnd = prng(16);
    for (let i = 0; i < 300; i++) {
      const s = Array.from({ length: 1 + Math.floor(rnd() * 60) }, () => String.fromCharCode(32 + Math.floor(rnd() * 95))).join('');
      expect(crc16ccitt(s)).toMatch(/^[0-9A-F]{4}$/);
    }
  });

  test('a code carries the CRC of everything before it, "6304" included', () => {
    const code = buildBrCode(base);
    expect(code.slice(-8, -4)).toBe('6304');
    expect(code.slice(-4)).toBe(crc16ccitt(code.slice(0, -4)));
    expect(hasValidCrc(code)).toBe(true);
  });

  test('any single changed character, anywhere, is caught by the CRC', () => {
    const code = buildBrCode({ ...base, amountCents: 2990 });
    for (let i = 0; i < code.length - 4; i++) {
      const c = code[i] === 'X' ? 'Y' : 'X';
      expect(hasValidCrc(code.slice(0, i) + c + code.slice(i + 1))).toBe(false);
    }
  });

  test('too short to carry a CRC is not valid', () => {
    expect(hasValidCrc('')).toBe(false);
    expect(hasValidCrc('6304FFFF')).toBe(false);
  });
});

describe('the fields of a code', () => {
  test('in order: 00 version, 26 account, 52, 53 BRL, 54 amount, 58 BR, 59 name, 60 city, 62 txid, 63 CRC', () => {
    expect(fields(buildBrCode({ ...base, amountCents: 1000 })).map((f) => f.id)).toEqual([
      '00',
      '26',
      '52',
      '53',
      '54',
      '58',
      '59',
      '60',
      '62',
      '63',
    ]);
  });

  test('a single-use code says point of initiation 12 right after the version', () => {
    const f = fields(buildBrCode({ ...base, singleUse: true }));
    expect(f.slice(0, 2)).toEqual([
      { id: '00', len: 2, value: '01' },
      { id: '01', len: 2, value: '12' },
    ]);
  });

  test('fixed values: version 01, category 0000, currency 986, country BR', () => {
    const p = parseBrCode(buildBrCode(base));
    expect([p['00'], p['52'], p['53'], p['58']]).toEqual(['01', '0000', '986', 'BR']);
  });

  test('the account template: GUI br.gov.bcb.pix, the key, the description when there is one', () => {
    expect(parseBrCode(parseBrCode(buildBrCode(base))['26'])).toEqual({ '00': 'br.gov.bcb.pix', '01': base.key });
    expect(parseBrCode(parseBrCode(buildBrCode({ ...base, description: 'Pedido 7' }))['26'])).toEqual({
      '00': 'br.gov.bcb.pix',
      '01': base.key,
      '02': 'Pedido 7',
    });
  });

  test.each([
    [1, '0.01'],
    [99, '0.99'],
    [100, '1.00'],
    [2990, '29.90'],
    [123456, '1234.56'],
    [0, '0.00'],
  ])('%i cents is the amount %s (dot, two decimals)', (cents, amount) => {
    expect(parseBrCode(buildBrCode({ ...base, amountCents: cents }))['54']).toBe(amount);
  });

  test('no amount: field 54 is left out (an open-amount code)', () => {
    expect(parseBrCode(buildBrCode(base))['54']).toBeUndefined();
  });

  test('the txid sits in 62-05', () => {
    expect(parseBrCode(parseBrCode(buildBrCode(base))['62'])).toEqual({ '05': 'ABC123' });
    expect(parseBrCode(parseBrCode(buildBrCode({ ...base, txid: '***' }))['62'])).toEqual({ '05': '***' });
  });

  test('a length is the bytes of the value in UTF-8 (an accent counts twice)', () => {
    const code = buildBrCode({ ...base, description: 'ção' });
    expect(code).toContain('0205ção'); // ç and ã are two bytes each
    expect(code).toContain(`26${String(4 + 14 + 4 + base.key.length + 4 + 5).padStart(2, '0')}0014br.gov.bcb.pix`);
    expect(hasValidCrc(code)).toBe(true);
  });
});

describe("BACEN's limits", () => {
  test('the limits', () => {
    expect(BRCODE_LIMITS).toEqual({ key: 77, merchantName: 25, merchantCity: 15, txid: 25 });
  });

  test.each([
    ['1 character', 'A', true],
    ['25 characters', 'A'.repeat(25), true],
    ['26 characters', 'A'.repeat(26), false],
    ['mixed case and digits', 'aZ09bY18', true],
    ['***', '***', true],
    ['**', '**', false],
    ['empty', '', false],
    ['a dash', 'ABC-123', false],
    ['a space', 'ABC 123', false],
    ['an accent', 'ÁBC', false],
    ['an underscore', 'A_B', false],
  ])('txid with %s: %s', (_what, txid, ok) => {
    expect(TXID_RE.test(txid)).toBe(ok);
    if (ok) expect(parseBrCode(parseBrCode(buildBrCode({ ...base, txid }))['62'])['05']).toBe(txid);
    else expect(() => buildBrCode({ ...base, txid })).toThrow('BR Code field 62-05 must be 1 to 25 characters of [A-Za-z0-9] (or ***)');
  });

  test.each([
    ['key', { key: 'k'.repeat(77) }, { key: 'k'.repeat(78) }, 'BR Code PIX key must be 1 to 77 characters'],
    ['key', { key: 'k' }, { key: '' }, 'BR Code PIX key must be 1 to 77 characters'],
    [
      'merchant name',
      { merchantName: 'N'.repeat(25) },
      { merchantName: 'N'.repeat(26) },
      'BR Code merchant name must be 1 to 25 characters',
    ],
    ['merchant name', { merchantName: 'N' }, { merchantName: '' }, 'BR Code merchant name must be 1 to 25 characters'],
    [
      'merchant city',
      { merchantCity: 'C'.repeat(15) },
      { merchantCity: 'C'.repeat(16) },
      'BR Code merchant city must be 1 to 15 characters',
    ],
    ['merchant city', { merchantCity: 'C' }, { merchantCity: '' }, 'BR Code merchant city must be 1 to 15 characters'],
  ])('%s: at the limit accepted, past it refused', (_what, fits, over, message) => {
    expect(hasValidCrc(buildBrCode({ ...base, ...fits }))).toBe(true);
    expect(() => buildBrCode({ ...base, ...over })).toThrow(message);
  });

  test('no field may be longer than 99 bytes (a two-digit length)', () => {
    expect(() => buildBrCode({ ...base, description: 'd'.repeat(60) })).toThrow('BR Code field 26 longer than 99 bytes');
  });
});

describe('pixText: upper-case-ready ASCII for name and city', () => {
  test.each([
    ['São Paulo', 15, 'Sao Paulo'],
    ['Florianópolis', 15, 'Florianopolis'],
    ['  Ribeirão Preto  ', 15, 'Ribeirao Preto'],
    ['Cota Verde Ltda. & Cia', 25, 'Cota Verde Ltda.  Cia'],
    ['Açaí—Brasil!', 25, 'AcaiBrasil'],
    ['Uma cidade com nome muito longo', 15, 'Uma cidade com '],
    ['Itapecerica-da-Serra', 15, 'Itapecerica-da-'],
  ])('%j (max %i) → %j', (input, max, out) => {
    expect(pixText(input, max)).toBe(out);
  });

  test('whatever the text, the result is within the limit and of the allowed characters', () => {
    const rnd = prng(60);
    const alphabet = 'abcçãéíóúüÁÉÍÓÚÂÊÔÃÕ -.!@#$%&*()_+=/\\|,;:?ºª0123456789XYZ';
    for (let i = 0; i < 300; i++) {
      const s = Array.from({ length: Math.floor(rnd() * 40) }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join('');
      const out = pixText(s, 15);
      expect(out.length).toBeLessThanOrEqual(15);
      expect(out).toMatch(/^[A-Za-z0-9 .-]*$/);
    }
  });
});

describe('the sandbox txid', () => {
  test('25 characters of an unambiguous upper-case alphabet, valid in 62-05', () => {
    expect(TXID_LENGTH).toBe(BRCODE_LIMITS.txid);
    const seen = new Set<string>();
    for (let i = 0; i < 500; i++) {
      const txid = newTxid();
      expect(txid).toMatch(/^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{25}$/);
      expect(TXID_RE.test(txid)).toBe(true);
      seen.add(txid);
    }
    expect(seen.size).toBe(500);
  });
});

describe('300 generated codes', () => {
  const rnd = prng(300);
  const pick = (chars: string, min: number, max: number) =>
    Array.from({ length: min + Math.floor(rnd() * (max - min + 1)) }, () => chars[Math.floor(rnd() * chars.length)]).join('');
  const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const inputs: BrCodeInput[] = Array.from({ length: 300 }, () => ({
    key: pick(ALNUM + '@.-', 1, 77),
    merchantName: pick(ALNUM + ' ', 1, 25),
    merchantCity: pick(ALNUM + ' ', 1, 15),
    txid: rnd() < 0.1 ? '***' : pick(ALNUM, 1, 25),
    amountCents: rnd() < 0.2 ? undefined : Math.floor(rnd() * 10_000_000),
    singleUse: rnd() < 0.5,
  }));

  test('each reads back field by field to what went in, with a valid CRC', () => {
    for (const i of inputs) {
      const code = buildBrCode(i);
      expect(hasValidCrc(code)).toBe(true);
      for (const f of fields(code)) expect(f.len).toBe(Buffer.byteLength(f.value, 'utf8'));
      const p = parseBrCode(code);
      expect(parseBrCode(p['26'])['01']).toBe(i.key);
      expect(p['59']).toBe(i.merchantName);
      expect(p['60']).toBe(i.merchantCity);
      expect(parseBrCode(p['62'])['05']).toBe(i.txid);
      expect(p['54']).toBe(i.amountCents == null ? undefined : (i.amountCents / 100).toFixed(2));
      expect(p['01']).toBe(i.singleUse ? '12' : undefined);
      expect(p['63']).toBe(code.slice(-4));
    }
  });

  test('the same input always gives the same code', () => {
    for (const i of inputs.slice(0, 50)) expect(buildBrCode({ ...i })).toBe(buildBrCode(i));
  });
});
