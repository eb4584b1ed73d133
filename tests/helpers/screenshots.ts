/**
 * Screenshots of the browser tests, for a person to look at: saved under tests/artifacts/
 * (git-ignored), one PNG per name, replaced on every run. Each screenshot is a page state a test
 * visits, so each is also an accessibility gate: axe runs first (expectAccessible, named after it).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { contrastRatio } from './contrast';
import { expectAccessible } from './a11y';
import { eventually } from './eventually';

export const ARTIFACTS_DIR = path.resolve(__dirname, '../artifacts');

export async function saveScreenshot(page: Page, name: string, opts: { fullPage?: boolean } = {}): Promise<string> {
  await expectAccessible(page, name);
  fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const file = path.join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: opts.fullPage ?? false, animations: 'disabled' });
  return file;
}

/** The computed text colour, background colour and outline of an element, as the browser paints them. */
export async function paintedColours(
  el: Locator,
): Promise<{ color: string; background: string; outlineColor: string; outlineWidth: string; outlineStyle: string }> {
  // Runs in the page (this file is compiled without DOM types, hence globalThis).
  return el.evaluate((node: unknown) => {
    const s = (globalThis as any).getComputedStyle(node);
    return {
      color: s.color,
      background: s.backgroundColor,
      outlineColor: s.outlineColor,
      outlineWidth: s.outlineWidth,
      outlineStyle: s.outlineStyle,
    };
  });
}

/**
 * Contrast of an element's text on its own (opaque) background, as painted. A dialog fading in
 * or a colour transition paints intermediate (even translucent) colours for a moment: measured
 * once the element has no running animation or transition (waited for up to 10 s).
 */
export async function paintedContrast(el: Locator): Promise<number> {
  await eventually(
    async () => el.evaluate((node: any) => node.getAnimations().length === 0),
    'the element to stop animating',
    10_000,
  ).catch(() => {});
  const c = await paintedColours(el);
  return contrastRatio(c.color, c.background);
}

/**
 * Waits until the page is at rest: no finite animation or transition running, and two looks in a
 * row see the same layout (document size, scroll position, viewport). Before a screenshot, after a
 * scroll or a viewport change.
 */
export async function pageAtRest(page: Page): Promise<void> {
  let last = '';
  await eventually(async () => {
    const now = await page.evaluate(() => {
      const g = globalThis as any;
      const moving = (g.document.getAnimations() as any[]).some(
        (a) => a.playState === 'running' && Number.isFinite(a.effect?.getComputedTiming?.().endTime ?? Infinity),
      );
      const d = g.document.documentElement;
      return moving ? 'moving' : JSON.stringify([d.scrollWidth, d.scrollHeight, g.scrollX, g.scrollY, g.innerWidth, g.innerHeight]);
    });
    const still = now !== 'moving' && now === last;
    last = now;
    return still;
  }, 'the page to come to rest');
}

/**
 * A full-page screenshot for docs (`dir/name.png`), taken from the top (a full-page shot of a
 * scrolled page paints the sticky top bar mid-page), once the page is at rest after the scroll.
 * The fourth argument, a fixed settling time in older callers, is not used.
 */
export async function saveFullPageShot(page: Page, dir: string, name: string, _unusedSettleMs?: number): Promise<void> {
  await expectAccessible(page, name);
  fs.mkdirSync(dir, { recursive: true });
  await page.evaluate(() => (globalThis as any).scrollTo(0, 0));
  await pageAtRest(page);
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true, animations: 'disabled' });
}
