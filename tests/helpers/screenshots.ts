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

export const ARTIFACTS_DIR = path.resolve(__dirname, '../artifacts');

export async function saveScreenshot(page: Page, name: string, opts: { fullPage?: boolean } = {}): Promise<string> {
  await expectAccessible(page, name);
  fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const file = path.join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: opts.fullPage ?? false, animations: 'disabled' });
  return file;
}

/** The computed text colour, background colour and outline of an element, as the browser paints them. */
export async function paintedColours(el: Locator): Promise<{ color: string; background: string; outlineColor: string; outlineWidth: string; outlineStyle: string }> {
  // Runs in the page (this file is compiled without DOM types, hence globalThis).
  return el.evaluate((node: unknown) => {
    const s = (globalThis as any).getComputedStyle(node);
    return { color: s.color, background: s.backgroundColor, outlineColor: s.outlineColor, outlineWidth: s.outlineWidth, outlineStyle: s.outlineStyle };
  });
}

/**
 * Contrast of an element's text on its own (opaque) background, as painted. A dialog fading in
 * or a colour transition paints intermediate (even translucent) colours for a moment: measured
 * once the element has no running animation or transition (waited for up to 10 s).
 */
export async function paintedContrast(el: Locator): Promise<number> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && !(await el.evaluate((node: any) => node.getAnimations().length === 0))) await el.page().waitForTimeout(50);
  const c = await paintedColours(el);
  return contrastRatio(c.color, c.background);
}

/**
 * A full-page screenshot for docs (`dir/name.png`), taken from the top: a full-page shot of a
 * scrolled page paints the sticky top bar mid-page. `settleMs` lets the scroll settle first.
 */
export async function saveFullPageShot(page: Page, dir: string, name: string, settleMs = 300): Promise<void> {
  await expectAccessible(page, name);
  fs.mkdirSync(dir, { recursive: true });
  await page.evaluate(() => (globalThis as any).scrollTo(0, 0));
  await page.waitForTimeout(settleMs);
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true, animations: 'disabled' });
}
