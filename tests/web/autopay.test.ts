/**
 * The rules of the autopay dialog of /conta (web/src/pages/account/autopay.ts; account spec §5,
 * §9): picking up to 20 captive numbers, the card fields (digits, expiry MM/AA or MM/AAAA, CVV,
 * CPF/CNPJ) and 'Salvar' enabled only when something changed.
 */
import {
  AUTOPAY_MESSAGES,
  EMPTY_CARD,
  MAX_CAPTIVE,
  cellStateOf,
  docDigits,
  docKind,
  formatCardNumber,
  formatCvv,
  formatDoc,
  formatExpiry,
  hasCardInput,
  hasChanges,
  isExpired,
  isValidCardNumber,
  isValidCnpj,
  isValidDoc,
  parseExpiry,
  togglePick,
  validateForm,
  type CardFields,
} from '../../web/src/pages/account/autopay';
import { makeCpf } from '../helpers/cpf';

const CPF = makeCpf(123456789);
const CNPJ = '11222333000181';
const TODAY = new Date(Date.UTC(2026, 10, 23, 12)); // 23/11/2026
const CARD: CardFields = { number: '4111 1111 1111 1111', expiry: '12/30', cvv: '123', holder: 'Joana  Pereira ', doc: CPF };

describe('picking captive numbers', () => {
  test('a pick is added (sorted) and a second tap takes it away', () => {
    let r = togglePick([], 42);
    expect(r).toEqual({ numbers: [42], error: null });
    r = togglePick(r.numbers, 7);
    expect(r.numbers).toEqual([7, 42]);
    r = togglePick(r.numbers, 42);
    expect(r).toEqual({ numbers: [7], error: null });
  });

  test('at most 20: the 21st pick is refused with the limit message and the picks stay', () => {
    const twenty = Array.from({ length: MAX_CAPTIVE }, (_, i) => i);
    expect(MAX_CAPTIVE).toBe(20);
    const r = togglePick(twenty, 50);
    expect(r.numbers).toEqual(twenty);
    expect(r.error).toBe('Escolha no máximo 20 números cativos.');
    // Taking one away is still allowed, and then another fits.
    const fewer = togglePick(twenty, 3);
    expect(fewer.numbers).toHaveLength(19);
    expect(togglePick(fewer.numbers, 50)).toEqual({ numbers: [...fewer.numbers, 50].sort((a, b) => a - b), error: null });
  });

  test('numbers captive of another customer cannot be picked; out-of-board numbers are ignored', () => {
    const taken = new Set([5, 6]);
    expect(togglePick([1], 5, taken)).toEqual({ numbers: [1], error: null });
    expect(togglePick([1], 100)).toEqual({ numbers: [1], error: null });
    expect(togglePick([1], -1)).toEqual({ numbers: [1], error: null });
    expect(togglePick([1], 2.5)).toEqual({ numbers: [1], error: null });
  });

  test('cell states: picked → mine, held by another → taken, else free', () => {
    const taken = new Set([8]);
    expect(cellStateOf(3, [3], taken)).toBe('mine');
    expect(cellStateOf(8, [3], taken)).toBe('taken');
    expect(cellStateOf(9, [3], taken)).toBe('free');
  });
});

describe('card number', () => {
  test('digits only, at most 19, in groups of 4', () => {
    expect(formatCardNumber('4111-1111 1111x1111')).toBe('4111 1111 1111 1111');
    expect(formatCardNumber('1234567890123456789999')).toBe('1234 5678 9012 3456 789');
    expect(formatCardNumber('')).toBe('');
  });

  test('Luhn, 13 to 19 digits', () => {
    expect(isValidCardNumber('4111 1111 1111 1111')).toBe(true);
    expect(isValidCardNumber('4111 1111 1111 1112')).toBe(false);
    expect(isValidCardNumber('4111')).toBe(false);
    expect(isValidCardNumber('4111 1111 1111 1111 111')).toBe(false); // 19 digits, bad check digit
    expect(isValidCardNumber('41111111111111111111')).toBe(false); // 20 digits
  });
});

describe('expiry MM/AA or MM/AAAA', () => {
  test('the slash comes in after the month while typing', () => {
    const shown: string[] = [];
    let v = '';
    for (const key of '122030') shown.push((v = formatExpiry(v + key)));
    expect(shown).toEqual(['1', '12', '12/2', '12/20', '12/203', '12/2030']);
    expect(formatExpiry('12/')).toBe('12');
    expect(formatExpiry('12/20301')).toBe('12/2030');
  });

  test.each<[string, { month: number; year: number } | null]>([
    ['12/30', { month: 12, year: 2030 }],
    ['01/2031', { month: 1, year: 2031 }],
    [' 07/31 ', { month: 7, year: 2031 }],
    ['1/30', { month: 1, year: 2030 }],
    ['0731', null], // the form always shows the slash (formatExpiry)
    ['13/30', null],
    ['00/30', null],
    ['12/3', null],
    ['12/203', null],
    ['12/1999', null],
    ['', null],
    ['ab/cd', null],
  ])('%j → %j', (input, expected) => {
    expect(parseExpiry(input)).toEqual(expected);
  });

  test('valid through the last day of its month', () => {
    expect(isExpired({ month: 11, year: 2026 }, TODAY)).toBe(false);
    expect(isExpired({ month: 11, year: 2026 }, new Date(Date.UTC(2026, 10, 30, 23)))).toBe(false);
    expect(isExpired({ month: 10, year: 2026 }, TODAY)).toBe(true);
    expect(isExpired({ month: 1, year: 2027 }, TODAY)).toBe(false);
    expect(isExpired({ month: 12, year: 2025 }, TODAY)).toBe(true);
  });
});

describe('CVV and CPF/CNPJ', () => {
  test('CVV: digits only, at most 4', () => {
    expect(formatCvv('12a34 5')).toBe('1234');
  });

  test('CPF/CNPJ: digits only, at most 18; more than 11 digits counts as CNPJ', () => {
    expect(docDigits('1'.repeat(25))).toHaveLength(18);
    expect(docKind(CPF)).toBe('CPF');
    expect(docKind('123456789012')).toBe('CNPJ');
    expect(isValidDoc(CPF)).toBe(true);
    expect(isValidDoc(CNPJ)).toBe(true);
    expect(isValidCnpj('11.222.333/0001-81')).toBe(true);
    expect(isValidCnpj('11222333000182')).toBe(false);
    expect(isValidCnpj('11111111111111')).toBe(false);
    expect(isValidDoc('11111111111')).toBe(false);
    expect(isValidDoc('123456789012')).toBe(false); // 12 digits: neither
    expect(isValidDoc(`${CNPJ}0000`)).toBe(false); // 18 digits
  });

  test('masks: 000.000.000-00 and 00.000.000/0000-00 while typing', () => {
    expect(formatDoc('52998224725')).toBe('529.982.247-25');
    expect(formatDoc('5299822')).toBe('529.982.2');
    expect(formatDoc(CNPJ)).toBe('11.222.333/0001-81');
    expect(formatDoc('112223330001')).toBe('11.222.333/0001');
    expect(formatDoc('1122233300018199')).toBe('1122233300018199');
  });
});

describe("'Salvar' only when something changed", () => {
  const saved = { active: true, numbers: [7, 42] };
  test.each<[string, boolean, { active: boolean; numbers: number[]; card: CardFields }]>([
    ['nothing', false, { active: true, numbers: [7, 42], card: EMPTY_CARD }],
    ['same numbers in another order', false, { active: true, numbers: [42, 7], card: EMPTY_CARD }],
    ['the toggle', true, { active: false, numbers: [7, 42], card: EMPTY_CARD }],
    ['a number more', true, { active: true, numbers: [7, 42, 9], card: EMPTY_CARD }],
    ['a number swapped', true, { active: true, numbers: [7, 43], card: EMPTY_CARD }],
    ['a card field typed', true, { active: true, numbers: [7, 42], card: { ...EMPTY_CARD, cvv: '1' } }],
    ['only spaces in a card field', false, { active: true, numbers: [7, 42], card: { ...EMPTY_CARD, holder: '  ' } }],
  ])('%s → %s', (_what, expected, form) => {
    expect(hasChanges(saved, form)).toBe(expected);
  });

  test('hasCardInput', () => {
    expect(hasCardInput(EMPTY_CARD)).toBe(false);
    expect(hasCardInput({ ...EMPTY_CARD, doc: '1' })).toBe(true);
  });
});

describe('validateForm (before tokenizing)', () => {
  test('at least 1 number', () => {
    const v = validateForm({ active: true, numbers: [], card: CARD }, false, TODAY);
    expect(v).toMatchObject({ ok: false, message: 'Selecione pelo menos 1 número para salvar as preferências.' });
  });

  test('more than 20 numbers is refused', () => {
    const v = validateForm({ active: true, numbers: Array.from({ length: 21 }, (_, i) => i), card: CARD }, true, TODAY);
    expect(v).toMatchObject({ ok: false, message: AUTOPAY_MESSAGES.tooMany });
  });

  test('with a saved card, numbers and toggle change without the card', () => {
    expect(validateForm({ active: false, numbers: [1], card: EMPTY_CARD }, true, TODAY)).toEqual({ ok: true, card: null });
  });

  test('without a saved card, or with some card data typed, every card field is required', () => {
    const none = validateForm({ active: true, numbers: [1], card: EMPTY_CARD }, false, TODAY);
    expect(none).toMatchObject({ ok: false, message: 'Dados do cartão incompletos.' });
    const partial = validateForm({ active: true, numbers: [1], card: { ...CARD, cvv: '' } }, true, TODAY);
    expect(partial).toMatchObject({ ok: false, message: 'Dados do cartão incompletos.', fields: { cvv: 'Campo obrigatório.' } });
    expect(AUTOPAY_MESSAGES.cardIncomplete).toBe('Dados do cartão incompletos.');
  });

  test.each<[string, Partial<CardFields>, string, string]>([
    ['card number', { number: '4111 1111 1111 1112' }, 'number', 'Número do cartão inválido.'],
    ['expiry', { expiry: '13/30' }, 'expiry', 'Validade inválida. Use MM/AA ou MM/AAAA.'],
    ['expired', { expiry: '10/2026' }, 'expiry', 'Cartão vencido.'],
    ['CVV', { cvv: '12' }, 'cvv', 'Código de segurança inválido.'],
    ['CVV of 4 digits on a Visa', { cvv: '1234' }, 'cvv', 'Código de segurança inválido.'],
    ['CPF', { doc: '111.111.111-11' }, 'doc', 'CPF/CNPJ inválido.'],
  ])('an invalid %s is named', (_what, patch, field, message) => {
    const v = validateForm({ active: true, numbers: [1], card: { ...CARD, ...patch } }, false, TODAY);
    expect(v).toMatchObject({ ok: false, message, fields: { [field]: message } });
  });

  test('Amex takes a 4-digit CVV', () => {
    const amex = { ...CARD, number: '3782 822463 10005', cvv: '1234' };
    expect(validateForm({ active: true, numbers: [1], card: amex }, false, TODAY)).toMatchObject({
      ok: true,
      card: { security_code: '1234' },
    });
  });

  test('a valid card becomes the tokenizer input: digits, month, 4-digit year, trimmed holder', () => {
    const v = validateForm({ active: true, numbers: [1, 2, 3], card: { ...CARD, doc: formatDoc(CNPJ) } }, false, TODAY);
    expect(v).toEqual({
      ok: true,
      card: {
        card_number: '4111111111111111',
        expiration_month: 12,
        expiration_year: 2030,
        security_code: '123',
        cardholder_name: 'Joana Pereira',
        doc_number: CNPJ,
      },
    });
    const long = validateForm({ active: true, numbers: [1], card: { ...CARD, expiry: '11/2026' } }, false, TODAY);
    expect(long).toMatchObject({ ok: true, card: { expiration_month: 11, expiration_year: 2026 } });
  });
});
