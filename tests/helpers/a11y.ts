/**
 * Accessibility as a gate for the browser tests: `expectAccessible(page, label)` runs axe-core
 * (@axe-core/playwright) on the page as it is now, fails the test on any critical or serious
 * violation (WCAG 2.2 A/AA and axe's best practices), and records the counts of every impact, so
 * that `npm test` prints the totals of the run at its end (scripts/stack.ts reads them).
 *
 * Call it on every page state a browser test visits: each page once loaded, each dialog once
 * opened (after `settled`), each result shown. Records go to .data/test/a11y-<run>.jsonl, one
 * line per page state; the run's summary to .data/test/a11y-summary.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { eventually } from './eventually';

export const A11Y_DIR = path.resolve(__dirname, '../../.data/test');
export type Impact = 'critical' | 'serious' | 'moderate' | 'minor';
/** What fails a test: WCAG AA failures axe is sure of, and the worst best-practice ones. */
const BLOCKING: ReadonlySet<string> = new Set<Impact>(['critical', 'serious']);

/** One page state's result: violated rules per impact (a rule counts once, whatever its node count). */
export interface A11yRecord {
  file: string;
  test: string;
  label: string;
  url: string;
  rules: Record<Impact, number>;
  nodes: Record<Impact, number>;
  violations: Array<{ id: string; impact: Impact; nodes: number }>;
}

/** The file this run's records go to (one per `npm test`, shared by its jest workers). */
export function a11yRecordFile(runId = process.env.TEST_RUN_ID ?? 'local'): string {
  return path.join(A11Y_DIR, `a11y-${runId}.jsonl`);
}

/**
 * Waits (at most ~3 s) for the page's finite animations to end: axe reads colours as painted, and
 * a dialog still fading in has text at a fraction of its opacity. Endless ones (spinners) are ignored.
 */
async function animationsDone(page: Page): Promise<void> {
  await eventually(
    async () =>
      !(await page.evaluate(() =>
        ((globalThis as any).document.getAnimations() as any[]).some(
          (a) => a.playState === 'running' && Number.isFinite(a.effect?.getComputedTiming?.().endTime ?? Infinity),
        ),
      )),
    'the animations to end',
    3_000,
  ).catch(() => {});
}

function record(rec: A11yRecord): void {
  fs.mkdirSync(A11Y_DIR, { recursive: true });
  fs.appendFileSync(a11yRecordFile(), JSON.stringify(rec) + '\n');
}

/**
 * Runs axe on `page` and throws, listing each critical or serious violation with the elements it
 * found and how to fix them, if there is any. `label` names the page state in the record and the
 * error ('conta: PIX dialog'). `exclude` leaves out selectors the test does not own (rarely needed).
 */
export async function expectAccessible(page: Page, label: string, opts: { exclude?: string[] } = {}): Promise<A11yRecord> {
  await animationsDone(page);
  let builder = new AxeBuilder({ page });
  for (const sel of opts.exclude ?? []) builder = builder.exclude(sel);
  const results = await builder.analyze();

  const zero = () => ({ critical: 0, serious: 0, moderate: 0, minor: 0 });
  const rules = zero();
  const nodes = zero();
  const violations: A11yRecord['violations'] = [];
  for (const v of results.violations) {
    const impact = (v.impact ?? 'minor') as Impact;
    rules[impact] += 1;
    nodes[impact] += v.nodes.length;
    violations.push({ id: v.id, impact, nodes: v.nodes.length });
  }
  const state = (expect as any).getState?.() ?? {};
  const rec: A11yRecord = {
    file: state.testPath ? path.relative(path.resolve(__dirname, '../..'), state.testPath) : '',
    test: state.currentTestName ?? '',
    label,
    url: page.url(),
    rules,
    nodes,
    violations,
  };
  record(rec);

  const blocking = results.violations.filter((v) => BLOCKING.has(v.impact ?? ''));
  if (blocking.length) {
    const lines = blocking.map((v) => {
      const where = v.nodes
        .slice(0, 5)
        .map((n) => `    - ${n.target.join(' ')}\n      ${n.failureSummary?.replace(/\n/g, '\n      ') ?? ''}`)
        .join('\n');
      const more = v.nodes.length > 5 ? `\n    … e mais ${v.nodes.length - 5}` : '';
      return `  [${v.impact}] ${v.id}: ${v.help} (${v.helpUrl})\n${where}${more}`;
    });
    throw new Error(`axe: ${blocking.length} violação(ões) crítica(s)/séria(s) em "${label}" (${page.url()}):\n${lines.join('\n')}`);
  }
  return rec;
}
