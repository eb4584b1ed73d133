/**
 * The birth date of /cadastro (pages/register/birthdate.ts): typed as DD/MM/AAAA on a numeric
 * keyboard, sent to the server as YYYY-MM-DD, and checked with the shared registration rules.
 */
import { birthdateToIso, maskBirthdate } from '../../web/src/pages/register/birthdate';
import { MESSAGES, validateRegistration } from '../../src/shared/validation';

describe('maskBirthdate (while typing)', () => {
  test('the slashes come in after the day and the month, one keystroke at a time', () => {
    const typed = '15051990';
    const shown: string[] = [];
    let value = '';
    for (const key of typed) {
      value = maskBirthdate(value + key);
      shown.push(value);
    }
    expect(shown).toEqual(['1', '15', '15/0', '15/05', '15/05/1', '15/05/19', '15/05/199', '15/05/1990']);
  });

  test.each<[string, string]>([
    ['', ''],
    ['1', '1'],
    ['15/', '15'], // backspace over a slash takes the slash away with the digit before it next
    ['15/0', '15/0'],
    ['15/05/', '15/05'],
    ['15.05.1990', '15/05/1990'],
    ['15-05-1990', '15/05/1990'],
    ['15 05 1990', '15/05/1990'],
    ['abc15x05y1990z', '15/05/1990'],
    ['150519901234', '15/05/1990'], // at most 8 digits
    ['1990-05-15', '15/05/1990'], // a pasted or autofilled ISO date is turned around
    [' 2000-02-29 ', '29/02/2000'],
  ])('%j → %j', (input, shown) => {
    expect(maskBirthdate(input)).toBe(shown);
  });

  test('masking is idempotent', () => {
    for (const v of ['1', '15/0', '15/05/19', '15/05/1990']) expect(maskBirthdate(maskBirthdate(v))).toBe(v);
  });
});

describe('birthdateToIso (what the server receives, as before: YYYY-MM-DD)', () => {
  test.each<[string, string]>([
    ['15/05/1990', '1990-05-15'],
    ['01/01/2000', '2000-01-01'],
    ['29/02/2000', '2000-02-29'],
    ['31/12/1950', '1950-12-31'],
    [' 15/05/1990 ', '1990-05-15'],
  ])('%j → %j', (typed, iso) => {
    expect(birthdateToIso(typed)).toBe(iso);
  });

  test.each([
    '',
    '15',
    '15/05',
    '15/05/199',
    '1/5/1990',
    '31/02/2000',
    '29/02/2001',
    '00/05/1990',
    '15/13/1990',
    '15/00/1990',
    '1990-05-15',
  ])('not a whole real date: %j → null', (typed) => {
    expect(birthdateToIso(typed)).toBeNull();
  });
});

describe('the registration rules on a typed date', () => {
  // 23 Nov 2026, noon in São Paulo.
  const today = new Date('2026-11-23T15:00:00Z');
  const ruleFor = (typed: string) => validateRegistration({ birthdate: birthdateToIso(typed) ?? typed }, today).birthdate;

  test('an adult passes, someone 18 tomorrow does not, with the accented messages', () => {
    expect(ruleFor('23/11/2008')).toBeUndefined();
    expect(ruleFor('24/11/2008')).toBe('É necessário ter 18 anos ou mais.');
    expect(ruleFor('24/11/2008')).toBe(MESSAGES.underage);
  });

  test('nothing typed asks for the date; a half-typed one is not taken for a date', () => {
    expect(ruleFor('')).toBe('Informe a data de nascimento.');
    expect(ruleFor('15/05')).toBe(MESSAGES.birthdateRequired);
    expect(MESSAGES.birthdateInvalid).toBe('Data de nascimento inválida. Use DD/MM/AAAA.');
  });
});
