/**
 * Pieces of the admin console that need no browser: the audit log's field-by-field before/after
 * (pages/admin/audit/describe.ts) and the WCAG AA contrast of the dashboard's status chips and the
 * audit diff's highlighted cells on the card surface (pages/admin/dashboard/dashboard.css,
 * audit/audit.css).
 */
import fs from 'node:fs';
import path from 'node:path';
import { actionLabel, diffFields, entityLabel, show } from '../../web/src/pages/admin/audit/describe';
import { COLORS } from '../../web/src/theme';
import { AA_TEXT, contrastRatio, flatten } from '../helpers/contrast';

describe('audit before/after', () => {
  test('every field of either side, the changed ones marked, nested objects with dotted names', () => {
    const rows = diffFields(
      { id: 7, status: 'open', closed_at: null, draw: { title: 'A', max_per_user: 1 } },
      { id: 7, status: 'closed', closed_at: '2026-11-23T13:58:54.790Z', draw: { title: 'A', max_per_user: 0 }, sold: 3 },
    );
    const byField = Object.fromEntries(rows.map((r) => [r.field, r]));
    expect(rows.map((r) => r.field)).toEqual(['id', 'status', 'closed_at', 'draw.title', 'draw.max_per_user', 'sold']);
    expect(byField.id).toEqual({ field: 'id', before: '7', after: '7', changed: false });
    expect(byField.status).toEqual({ field: 'status', before: 'open', after: 'closed', changed: true });
    expect(byField.closed_at.before).toBe('—');
    expect(byField.closed_at.after).toMatch(/^23\/11\/2026 \d{2}:58:54$/);
    expect(byField['draw.max_per_user']).toMatchObject({ before: '1', after: '0', changed: true });
    expect(byField['draw.title'].changed).toBe(false);
    expect(byField.sold).toEqual({ field: 'sold', before: '', after: '3', changed: true });
  });

  test('a creation (before null) and a deletion (after null) list the one side', () => {
    expect(diffFields(null, { id: 1, title: 'Novo' })).toEqual([
      { field: 'id', before: '', after: '1', changed: true },
      { field: 'title', before: '', after: 'Novo', changed: true },
    ]);
    expect(diffFields({ id: 1 }, null)).toEqual([{ field: 'id', before: '1', after: '', changed: true }]);
  });

  test('values read plainly: texts as typed, lists as JSON, booleans and numbers as they are', () => {
    expect(show('Olá')).toBe('Olá');
    expect(show(null)).toBe('—');
    expect(show([3, 14])).toBe('[3,14]');
    expect(show(true)).toBe('true');
    expect(show('2026-11-23')).toBe('2026-11-23');
  });

  test('known actions and entities in Portuguese; unknown ones as recorded', () => {
    expect(actionLabel('draw.status_changed')).toBe('Status do sorteio alterado');
    expect(actionLabel('algo.novo')).toBe('algo.novo');
    expect(entityLabel('draw')).toBe('Sorteio');
    expect(entityLabel('coisa')).toBe('coisa');
  });

  test('every action the server audits has a Portuguese label', () => {
    // The actions written by src/ (audit() calls), including the payment transitions `payment.<status>`.
    const src = path.resolve(__dirname, '../../src');
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        if (e.isDirectory()) walk(path.join(dir, e.name));
        else if (e.name.endsWith('.ts')) files.push(path.join(dir, e.name));
      }
    };
    walk(src);
    const actions = new Set<string>();
    for (const f of files) {
      const text = fs.readFileSync(f, 'utf8');
      if (!text.includes('audit(')) continue;
      for (const m of text.matchAll(/action: (?:[^,}]*\? )?'([a-z_]+\.[a-z_]+)'/g)) actions.add(m[1]);
      for (const m of text.matchAll(/action: [^,}]*: '([a-z_]+\.[a-z_]+)'/g)) actions.add(m[1]);
    }
    for (const s of ['authorized', 'approved', 'in_mediation', 'rejected', 'cancelled', 'expired', 'refunded', 'charged_back'])
      actions.add(`payment.${s}`);
    expect(actions.size).toBeGreaterThan(20);
    const missing = [...actions].filter((a) => actionLabel(a) === a);
    expect(missing).toEqual([]);
    expect(entityLabel('lottery_result')).toBe('Resultado da Lotomania');
    expect(entityLabel('autopay_profile')).toBe('Compra automática');
  });
});

describe('contrast of the console colours (WCAG AA on the card surface)', () => {
  const WEB = path.resolve(__dirname, '../../web/src/pages/admin');
  const block = (file: string, selector: string) => {
    const src = fs.readFileSync(path.join(WEB, file), 'utf8');
    const m = src.match(new RegExp(`\\n${selector.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')} \\{([^}]*)\\}`));
    if (!m) throw new Error(`no rule ${selector}`);
    const get = (prop: string) => m[1].match(new RegExp(`(?:^|\\s)${prop}:\\s*([^;]+);`))?.[1].trim();
    return { color: get('color'), background: get('background') };
  };

  test.each(['.status-chip--open', '.status-chip--closed', '.status-chip--drawn'])('%s', (selector) => {
    const { color, background } = block('dashboard/dashboard.css', selector);
    const bg = flatten(background!, COLORS.surface);
    expect(contrastRatio(flatten(color!, bg), bg)).toBeGreaterThanOrEqual(AA_TEXT);
  });

  test('a changed cell of the audit diff', () => {
    const { background } = block('audit/audit.css', '.audit-diff-changed td');
    const bg = flatten(background!, COLORS.surface);
    expect(contrastRatio(flatten('rgba(255, 255, 255, 0.88)', bg), bg)).toBeGreaterThanOrEqual(AA_TEXT);
  });
});
