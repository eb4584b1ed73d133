/**
 * WCAG AA contrast of the colours the site actually paints (the antd theme of web/src/theme.ts as
 * antd derives it, and the CSS of the board), computed with the WCAG 2.x formula
 * (tests/helpers/contrast.ts): text on primary buttons, on selected cells, on dimmed (sold)
 * cells, and the keyboard focus ring.
 */
import fs from 'node:fs';
import path from 'node:path';
import { theme } from 'antd';
import { appTheme, COLORS } from '../../web/src/theme';
import { AA_TEXT, contrastRatio, flatten, parseColor, type Rgba } from '../helpers/contrast';

const WEB = path.resolve(__dirname, '../../web/src');
const css = (file: string) => fs.readFileSync(path.join(WEB, file), 'utf8');
const STYLES = css('styles.css');
const GRID = css('components/board/number-grid.css');
const CARD = css('components/product/product-card.css');
const NUMBERS = css('pages/numbers/numbers.css');
const PRODUCT_PAGE = css('pages/product/product-page.css');

/**
 * The declarations of the rules whose selector is exactly `selector`, merged, the first one
 * winning (the base rules come before the media queries in these files).
 */
function rule(source: string, selector: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = new RegExp(`(?:^|\\n|\\})\\s*${selector.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')}\\s*\\{([^}]*)\\}`, 'g');
  let found = false;
  for (const m of source.matchAll(re)) {
    found = true;
    for (const decl of m[1].replace(/\/\*[\s\S]*?\*\//g, '').split(';')) {
      const i = decl.indexOf(':');
      const prop = decl.slice(0, i).trim();
      if (i > 0 && !(prop in out)) out[prop] = decl.slice(i + 1).trim();
    }
  }
  if (!found) throw new Error(`no rule ${selector}`);
  return out;
}

const ROOT = rule(STYLES, ':root');
/** A colour value with var(--x) resolved against :root (and the rule's own custom properties). */
function colour(value: string, own: Record<string, string> = {}): string {
  const v = /^var\((--[\w-]+)\)$/.exec(value.trim());
  if (!v) return value.trim();
  const resolved = own[v[1]] ?? ROOT[v[1]];
  if (!resolved) throw new Error(`unknown ${v[1]}`);
  return colour(resolved, own);
}

const tokens = theme.getDesignToken(appTheme);

describe('primary buttons', () => {
  test('the CSS --green is the primary antd derives from the brand seed under the dark algorithm', () => {
    expect(colour('var(--green)')).toBe(tokens.colorPrimary);
    expect(COLORS.green).not.toBe(tokens.colorPrimary); // the seed is shifted by the dark algorithm
  });

  test.each(['colorPrimary', 'colorPrimaryHover', 'colorPrimaryActive'] as const)('white text on %s reaches 4.5:1', (bg) => {
    const ratio = contrastRatio(tokens.colorTextLightSolid, tokens[bg]);
    expect(tokens.colorTextLightSolid.toLowerCase()).toMatch(/^#fff(fff)?$/);
    expect(ratio).toBeGreaterThanOrEqual(AA_TEXT);
  });
});

describe('board cells', () => {
  const bg = colour(ROOT['--bg']);
  const surface = colour(ROOT['--surface']);
  /** Where boards are drawn: /numeros and the product page on the surface, home cards on a darkened surface. */
  const boardBackgrounds: Array<[string, Rgba]> = [
    ['/numeros', flatten(colour(rule(NUMBERS, '.numbers-board').background), bg)],
    ['product page', flatten(colour(rule(PRODUCT_PAGE, '.product-page-board').background), bg)],
    ['home card', flatten(rule(CARD, '.product-card-board').background, colour(rule(CARD, '.product-card').background), bg)],
  ];

  test('the boards sit where this test thinks they do', () => {
    expect(colour(rule(NUMBERS, '.numbers-board').background)).toBe(surface);
  });

  test.each(boardBackgrounds)('dimmed (sold) cell text reaches 4.5:1 on the %s board', (_where, under) => {
    const cell = rule(GRID, '.number-cell--unavailable');
    const cellBg = flatten(cell.background, under);
    expect(contrastRatio(cell.color, cellBg)).toBeGreaterThanOrEqual(AA_TEXT);
  });

  test.each(boardBackgrounds)('available, reserved and own cells reach 4.5:1 on the %s board', (_where, under) => {
    const base = rule(GRID, '.number-cell');
    const ratios = ['.number-cell--available', '.number-cell--reserved', '.number-cell--mine'].map((state) => {
      const r = rule(GRID, state);
      return { state, ratio: contrastRatio(colour(r.color ?? base.color), flatten(r.background, under)) };
    });
    for (const { state, ratio } of ratios) expect({ state, passes: ratio >= AA_TEXT }).toEqual({ state, passes: true });
    const mine = flatten(rule(GRID, '.number-cell--mine').background, under);
    expect(contrastRatio(colour(rule(GRID, '.number-cell__owner').color), mine)).toBeGreaterThanOrEqual(AA_TEXT);
  });

  test('a selected cell: dark text on a bright fill, the fill at least 3:1 against an available cell (issue 26)', () => {
    const r = rule(GRID, '.number-cell--selected');
    expect(contrastRatio(colour(r.color), colour(r.background))).toBeGreaterThanOrEqual(AA_TEXT);
    const check = rule(GRID, '.number-cell__check');
    expect(contrastRatio(colour(check.color), colour(check.background))).toBeGreaterThanOrEqual(AA_TEXT);
    for (const [, under] of boardBackgrounds) {
      const available = flatten(rule(GRID, '.number-cell--available').background, under);
      expect(contrastRatio(colour(r.background), available)).toBeGreaterThanOrEqual(3);
    }
  });

  test('the winning cell: amber with dark text (AA), the owner initials on it too', () => {
    const r = rule(GRID, '.number-grid .number-cell.number-cell--winner');
    expect(colour(r.background)).toBe(colour('var(--amber)'));
    expect(contrastRatio(colour(r.color), colour(r.background))).toBeGreaterThanOrEqual(AA_TEXT);
    const owner = rule(GRID, '.number-cell--winner .number-cell__owner');
    expect(contrastRatio(colour(owner.color), colour(r.background))).toBeGreaterThanOrEqual(AA_TEXT);
  });
});

describe('focused text fields', () => {
  test.each(['Input', 'InputNumber'] as const)(
    '%s: the focused border stands out (3:1) on the field and differs from the resting one',
    (name) => {
      const focused = appTheme.components?.[name]?.activeBorderColor;
      expect(focused).toBeDefined();
      expect(contrastRatio(focused as string, tokens.colorBgContainer)).toBeGreaterThanOrEqual(3);
      expect(contrastRatio(focused as string, tokens.colorBorder)).toBeGreaterThanOrEqual(1.5);
    },
  );
});

describe('keyboard focus ring', () => {
  const ring = rule(STYLES, ':focus-visible');

  test('is 2 px of amber, offset from the control', () => {
    expect(ring.outline).toBe('2px solid var(--amber)');
    expect(ring['outline-offset']).toBe('2px');
  });

  test.each(['--bg', '--surface', '--surface-2'])('stands out (3:1, WCAG 1.4.11) on %s', (surface) => {
    const amber = colour('var(--amber)');
    expect(parseColor(amber).a).toBe(1);
    expect(contrastRatio(amber, colour(ROOT[surface]))).toBeGreaterThanOrEqual(3);
  });
});

describe('draw detail (/me/draw/{id})', () => {
  test("the viewer's own numbers, filled: white on the fill reaches 4.5:1", () => {
    const r = rule(css('pages/account/account.css'), '.draw-detail-board .number-cell--mine');
    expect(contrastRatio(colour(r.color), colour(r.background))).toBeGreaterThanOrEqual(AA_TEXT);
  });
});

describe('autopay grid (/conta, dialog "Compra automática - número cativo")', () => {
  const AUTOPAY = css('pages/account/autopay.css');
  /** antd paints the dialog on colorBgElevated over the page (a mask dims the page, not the dialog). */
  const dialog = flatten(tokens.colorBgElevated, colour(ROOT['--bg']));

  test('the dialog surface is the raised surface of the theme', () => {
    expect(tokens.colorBgElevated.toLowerCase()).toBe(colour(ROOT['--surface-2']).toLowerCase());
  });

  test.each(['.captive-cell--free', '.captive-cell--mine', '.captive-cell--taken'])(
    '%s text reaches 4.5:1 on its cell in the dialog',
    (state) => {
      const r = rule(AUTOPAY, state);
      const cellBg = flatten(r['background-color'], dialog);
      expect(contrastRatio(colour(r.color), cellBg)).toBeGreaterThanOrEqual(AA_TEXT);
    },
  );

  test("the customer's own cells stand apart from free ones: a filled green with a bright ring (3:1 against the dialog)", () => {
    const mine = rule(AUTOPAY, '.captive-cell--mine');
    expect(contrastRatio(colour(mine['--cell-line']), dialog)).toBeGreaterThanOrEqual(3);
    expect(mine['background-color']).not.toBe(rule(AUTOPAY, '.captive-cell--free')['background-color']);
  });

  test('phones: a cell is at least 32 px (WCAG 2.2 target size) and the grid keeps the dialog margins (measured in the browser test)', () => {
    expect(rule(AUTOPAY, '.captive-cell')['min-height']).toBe('32px');
    expect(rule(AUTOPAY, '.captive-grid')['margin-inline'] ?? '').not.toMatch(/-/);
  });
});

describe('antd texts on the dark surfaces (WCAG AA)', () => {
  const surfaces = ['colorBgLayout', 'colorBgContainer', 'colorBgElevated'] as const;
  test.each([
    'colorText',
    'colorTextSecondary',
    'colorTextTertiary',
    'colorTextDescription',
    'colorTextPlaceholder',
    'colorError',
    'colorLink',
    'colorLinkHover',
    'colorLinkActive',
  ] as const)('%s reaches 4.5:1 on every surface', (fg) => {
    for (const bg of surfaces) expect({ fg, bg, ratio: contrastRatio(tokens[fg], tokens[bg]) >= AA_TEXT }).toEqual({ fg, bg, ratio: true });
  });

  test('filled danger buttons: their dark text reaches 4.5:1 on the red, resting and hovered', () => {
    const dangerColor = (appTheme.components?.Button as { dangerColor?: string } | undefined)?.dangerColor;
    expect(dangerColor).toBeDefined();
    expect(contrastRatio(dangerColor!, tokens.colorError)).toBeGreaterThanOrEqual(AA_TEXT);
    expect(contrastRatio(dangerColor!, tokens.colorErrorHover)).toBeGreaterThanOrEqual(AA_TEXT);
  });
});
