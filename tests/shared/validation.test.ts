import {
  MESSAGES,
  ageOn,
  calendarDateInBrazil,
  isAdult,
  isValidCpf,
  isValidEmail,
  isValidPhone,
  maskCpf,
  maskPhone,
  onlyDigits,
  parseIsoDate,
  validateRegistration,
} from '../../src/shared/validation';
import { EMPTY_REGISTRATION_MESSAGES } from '../auth/fixtures';

/** Noon in São Paulo (15:00 UTC) of a calendar date: unambiguous in every time zone. */
const noonBrt = (ymd: string) => new Date(`${ymd}T15:00:00Z`);

describe('onlyDigits', () => {
  test('keeps digits only', () => {
    expect(onlyDigits('529.982.247-25')).toBe('52998224725');
    expect(onlyDigits('(41) 99999-0000')).toBe('41999990000');
    expect(onlyDigits('')).toBe('');
  });
});

describe('isValidCpf', () => {
  test.each(['52998224725', '529.982.247-25', '11144477735', '111.444.777-35'])('accepts the valid CPF %s', (cpf) => {
    expect(isValidCpf(cpf)).toBe(true);
  });

  test.each(['00000000000', '11111111111', '999.999.999-99', '22222222222'])('rejects all-equal digits %s', (cpf) => {
    expect(isValidCpf(cpf)).toBe(false);
  });

  test.each([
    ['first check digit wrong', '52998224735'],
    ['second check digit wrong', '52998224726'],
    ['both check digits wrong', '529.982.247-00'],
    ['a body digit changed', '52998224625'],
    ['digits swapped', '25998224725'],
  ])('rejects a CPF with %s', (_why, cpf) => {
    expect(isValidCpf(cpf)).toBe(false);
  });

  test.each([
    ['10 digits', '5299822472'],
    ['12 digits', '529982247250'],
    ['empty', ''],
    ['letters only', 'abcdefghijk'],
  ])('rejects a CPF with %s', (_why, cpf) => {
    expect(isValidCpf(cpf)).toBe(false);
  });

  test('a check digit of 10 becomes 0', () => {
    // 123.456.789-09: the first remainder is (210 * 10) % 11 = 10, so the first check digit is 0
    expect(isValidCpf('12345678909')).toBe(true);
    expect(isValidCpf('12345678919')).toBe(false);
  });
});

describe('isValidPhone', () => {
  test.each(['4133334444', '41999990000', '(41) 99999-0000', '(41) 3333-4444', '+55 (41) 99999-0000', '5541999990000'])(
    'accepts %s',
    (phone) => expect(isValidPhone(phone)).toBe(true),
  );
  test.each(['', '999990000', '(41) 9999-000', '55419999900001', 'telefone'])('rejects %s', (phone) => {
    expect(isValidPhone(phone)).toBe(false);
  });
});

describe('isValidEmail', () => {
  test.each(['foo@x.com', 'Foo.Bar+tag@Example.COM.br', ' a@b.co ', 'a@b.c'])('accepts %s', (e) => expect(isValidEmail(e)).toBe(true));
  test.each(['', 'foo', 'foo@', '@x.com', 'foo@x', 'foo bar@x.com', 'foo@x .com', 'a@b@c.com', `${'a'.repeat(250)}@x.com`])(
    'rejects %s',
    (e) => expect(isValidEmail(e)).toBe(false),
  );
});

describe('parseIsoDate', () => {
  test('parses real calendar dates', () => {
    expect(parseIsoDate('2000-02-29')).toEqual({ y: 2000, m: 2, d: 29 });
    expect(parseIsoDate('1990-12-31')).toEqual({ y: 1990, m: 12, d: 31 });
  });
  test.each([
    '2001-02-30',
    '2001-02-29',
    '1900-02-29',
    '2001-13-01',
    '2001-00-10',
    '2001-04-31',
    '2001-1-1',
    '01/02/2001',
    '',
    'abc',
    '2001-01-01T00:00:00Z',
  ])('rejects %s', (v) => expect(parseIsoDate(v)).toBeNull());
});

describe('age', () => {
  test('exactly 18 today is an adult; one day short is not', () => {
    const today = noonBrt('2026-06-15');
    expect(ageOn('2008-06-15', today)).toBe(18);
    expect(isAdult('2008-06-15', today)).toBe(true);
    expect(ageOn('2008-06-16', today)).toBe(17);
    expect(isAdult('2008-06-16', today)).toBe(false);
    expect(isAdult('2008-07-01', today)).toBe(false);
    expect(isAdult('2007-12-31', today)).toBe(true);
  });

  test('leap-day birthdays complete the year on 1 March in non-leap years', () => {
    expect(ageOn('2008-02-29', noonBrt('2026-02-28'))).toBe(17);
    expect(isAdult('2008-02-29', noonBrt('2026-02-28'))).toBe(false);
    expect(ageOn('2008-02-29', noonBrt('2026-03-01'))).toBe(18);
    expect(isAdult('2008-02-29', noonBrt('2026-03-01'))).toBe(true);
    // in a leap year, on the day itself
    expect(ageOn('2004-02-29', noonBrt('2022-02-28'))).toBe(17);
    expect(ageOn('2000-02-29', noonBrt('2018-02-28'))).toBe(17);
    expect(ageOn('2000-02-29', noonBrt('2028-02-29'))).toBe(28);
  });

  test('the calendar date is the one in São Paulo, not the server time zone', () => {
    // 01:00 UTC on 10 March is still 22:00 on 9 March in São Paulo.
    expect(calendarDateInBrazil(new Date('2026-03-10T01:00:00Z'))).toEqual({ y: 2026, m: 3, d: 9 });
    expect(isAdult('2008-03-10', new Date('2026-03-10T01:00:00Z'))).toBe(false);
    expect(isAdult('2008-03-10', new Date('2026-03-10T03:00:00Z'))).toBe(true);
  });

  test('invalid, future and absurd birthdates are not adults', () => {
    const today = noonBrt('2026-06-15');
    expect(ageOn('2001-02-30', today)).toBeNull();
    expect(isAdult('2001-02-30', today)).toBe(false);
    expect(isAdult('2030-01-01', today)).toBe(false);
    expect(isAdult('1850-01-01', today)).toBe(false);
    expect(isAdult('', today)).toBe(false);
  });
});

describe('masks', () => {
  test.each([
    ['', ''],
    ['5', '5'],
    ['529', '529'],
    ['5299', '529.9'],
    ['529982', '529.982'],
    ['5299822', '529.982.2'],
    ['529982247', '529.982.247'],
    ['5299822472', '529.982.247-2'],
    ['52998224725', '529.982.247-25'],
    ['529982247251234', '529.982.247-25'],
    ['529.982.247-25', '529.982.247-25'],
    ['abc529x982', '529.982'],
  ])('maskCpf(%j) = %j', (input, out) => expect(maskCpf(input)).toBe(out));

  test.each([
    ['', ''],
    ['4', '(4'],
    ['41', '(41'],
    ['419', '(41) 9'],
    ['419999', '(41) 9999'],
    ['4199999', '(41) 9999-9'],
    ['4133334444', '(41) 3333-4444'],
    ['41999990000', '(41) 99999-0000'],
    ['41999990000123', '(41) 99999-0000'],
    ['(41) 99999-0000', '(41) 99999-0000'],
  ])('maskPhone(%j) = %j', (input, out) => expect(maskPhone(input)).toBe(out));

  test('masked values stay valid', () => {
    expect(isValidCpf(maskCpf('11144477735'))).toBe(true);
    expect(isValidPhone(maskPhone('41999990000'))).toBe(true);
  });
});

describe('validateRegistration', () => {
  const today = noonBrt('2026-06-15');
  const valid = {
    name: 'Maria da Silva',
    email: 'maria@example.com',
    phone: '(41) 99999-0000',
    cpf: '529.982.247-25',
    birthdate: '1990-01-15',
    password: 'segredo1',
    acceptTerms: true,
  };

  test('a valid form has no errors', () => {
    expect(validateRegistration(valid, today)).toEqual({});
  });

  test('an empty form reports every rule with the spec messages', () => {
    expect(validateRegistration({}, today)).toEqual(EMPTY_REGISTRATION_MESSAGES);
  });

  test.each([
    ['name', { name: '   ' }, MESSAGES.nameRequired],
    ['email', { email: 'maria@' }, 'E-mail inválido.'],
    ['phone', { phone: '9999-0000' }, 'Informe um telefone válido com DDD.'],
    ['cpf', { cpf: '111.111.111-11' }, 'CPF inválido.'],
    ['cpf', { cpf: '529.982.247-26' }, 'CPF inválido.'],
    ['birthdate', { birthdate: '' }, 'Informe a data de nascimento.'],
    ['birthdate', { birthdate: '2001-02-30' }, 'Informe a data de nascimento.'],
    ['birthdate', { birthdate: '2008-06-16' }, 'É necessário ter 18 anos ou mais.'],
    ['password', { password: '' }, 'Informe uma senha.'],
    ['password', { password: '12345' }, 'A senha deve ter pelo menos 6 caracteres.'],
    ['acceptTerms', { acceptTerms: false }, 'É necessário aceitar os termos.'],
  ])('%s: %j → its message only', (field, patch, message) => {
    expect(validateRegistration({ ...valid, ...patch }, today)).toEqual({ [field]: message });
  });

  test('exactly 18 on the day is accepted', () => {
    expect(validateRegistration({ ...valid, birthdate: '2008-06-15' }, today)).toEqual({});
  });
});
