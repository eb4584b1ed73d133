// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- import.meta.env's types for the web files under test (a type-only reference, nothing to import)
/// <reference path="../../web/src/vite-env.d.ts" />
/**
 * components/product/format.ts: amounts, cover addresses, price of one number, availability.
 * The API base URL comes from the build (import.meta.env, in web/src/api/base.ts), which jest
 * cannot load: each test states the base it runs with.
 */
type Format = typeof import('../../web/src/components/product/format');

function formatWith(apiBase: string): Format {
  let mod!: Format;
  jest.isolateModules(() => {
    jest.doMock('../../web/src/api/base', () => ({ API_BASE: apiBase }));
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- jest.isolateModules needs a synchronous load after the mock
    mod = require('../../web/src/components/product/format');
  });
  return mod;
}

const sameOrigin = formatWith('/api');

/** Intl pt-BR puts a no-break space after 'R$'. */
const brl = (s: string) => s.replace(' ', '\u00a0');

describe('formatBRL (cents → pt-BR reais)', () => {
  test.each<[number | null | undefined, string]>([
    [0, 'R$ 0,00'],
    [5, 'R$ 0,05'],
    [1000, 'R$ 10,00'],
    [50000, 'R$ 500,00'],
    [123456, 'R$ 1.234,56'],
    [100000000, 'R$ 1.000.000,00'],
    [null, 'R$ 0,00'],
    [undefined, 'R$ 0,00'],
    [Number.NaN, 'R$ 0,00'],
    [Number.POSITIVE_INFINITY, 'R$ 0,00'],
  ])('%p → %s', (cents, text) => {
    expect(sameOrigin.formatBRL(cents)).toBe(brl(text));
  });
});

describe('coverSrc (storefront spec §3 cover_url)', () => {
  test('an absolute URL, a protocol-relative one or a data image stays as it is', () => {
    for (const f of [sameOrigin, formatWith('https://api.cotaverde.example/api')]) {
      expect(f.coverSrc('https://cdn.example/capa.png')).toBe('https://cdn.example/capa.png');
      expect(f.coverSrc('HTTP://cdn.example/capa.png')).toBe('HTTP://cdn.example/capa.png');
      expect(f.coverSrc('//cdn.example/capa.png')).toBe('//cdn.example/capa.png');
      expect(f.coverSrc('data:image/png;base64,AAAA')).toBe('data:image/png;base64,AAAA');
    }
  });

  test('a path starting with / is on the API host: this origin by default', () => {
    expect(sameOrigin.coverSrc('/covers/guia.png')).toBe('/covers/guia.png');
    expect(sameOrigin.coverSrc('  /media/x.jpg  ')).toBe('/media/x.jpg');
  });

  test('a bare file name is under /covers of the API host', () => {
    expect(sameOrigin.coverSrc('guia.png')).toBe('/covers/guia.png');
    expect(sameOrigin.coverSrc('./guia.png')).toBe('/covers/guia.png');
    expect(sameOrigin.coverSrc('sub/guia.png')).toBe('/covers/sub/guia.png');
  });

  test('with an absolute API base, paths and bare names go to its origin', () => {
    const remote = formatWith('https://api.cotaverde.example/api');
    expect(remote.coverSrc('/covers/guia.png')).toBe('https://api.cotaverde.example/covers/guia.png');
    expect(remote.coverSrc('guia.png')).toBe('https://api.cotaverde.example/covers/guia.png');
  });

  test('nothing to show: null', () => {
    for (const c of [null, undefined, '', '   ']) expect(sameOrigin.coverSrc(c)).toBeNull();
  });
});

describe('unitPriceCents (price of one number)', () => {
  test("the draw's ticket price first, else the product's price, else none", () => {
    expect(sameOrigin.unitPriceCents({ price_cents: 1000 }, { ticket_price_cents: 1200 })).toBe(1200);
    expect(sameOrigin.unitPriceCents({ price_cents: 1000 }, { ticket_price_cents: 0 })).toBe(1000);
    expect(sameOrigin.unitPriceCents({ price_cents: 1000 }, null)).toBe(1000);
    expect(sameOrigin.unitPriceCents({ price_cents: 1000 })).toBe(1000);
    expect(sameOrigin.unitPriceCents({ price_cents: null })).toBeNull();
    expect(sameOrigin.unitPriceCents({ price_cents: 0 }, { ticket_price_cents: 0 })).toBeNull();
  });
});

describe('availability (board size and free numbers)', () => {
  const product = { default_total_numbers: 100 };
  const none = { reserved: 0, sold: 0, taken: 0 };

  test('no open draw: the default board, all free', () => {
    expect(sameOrigin.availability(product)).toEqual({ total: 100, available: 100 });
    expect(sameOrigin.availability({ default_total_numbers: 50 }, null)).toEqual({ total: 50, available: 50 });
    expect(sameOrigin.availability({ default_total_numbers: 0 })).toEqual({ total: 100, available: 100 });
  });

  test("the draw's counts: reserved, sold and taken are not free", () => {
    expect(sameOrigin.availability(product, { total_numbers: 100, counts: { reserved: 1, sold: 1, taken: 0 } })).toEqual({
      total: 100,
      available: 98,
    });
    expect(sameOrigin.availability(product, { total_numbers: 10, counts: { reserved: 5, sold: 5, taken: 5 } })).toEqual({
      total: 10,
      available: 0,
    });
  });

  test("the draw's own `available` wins, kept within the board", () => {
    expect(sameOrigin.availability(product, { total_numbers: 100, counts: none, available: 42 })).toEqual({ total: 100, available: 42 });
    expect(sameOrigin.availability(product, { total_numbers: 100, counts: none, available: 140 })).toEqual({ total: 100, available: 100 });
    expect(sameOrigin.availability(product, { total_numbers: 100, counts: none, available: -1 })).toEqual({ total: 100, available: 0 });
  });
});
