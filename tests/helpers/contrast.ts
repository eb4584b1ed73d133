/**
 * WCAG 2.x contrast (https://www.w3.org/TR/WCAG21/#dfn-contrast-ratio): relative luminance of
 * sRGB colours, with translucent colours first composited over what lies beneath them.
 */
export interface Rgba {
  r: number;
  g: number;
  b: number;
  a: number;
}

/** '#1d884b', '#fff', 'rgb(1, 2, 3)', 'rgba(255,255,255,0.35)' → channels 0-255 and alpha 0-1. */
export function parseColor(css: string): Rgba {
  const s = css.trim().toLowerCase();
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/.exec(s);
  if (hex) {
    let h = hex[1];
    if (h.length === 3) h = [...h].map((c) => c + c).join('');
    const n = (i: number) => parseInt(h.slice(i, i + 2), 16);
    return { r: n(0), g: n(2), b: n(4), a: h.length === 8 ? n(6) / 255 : 1 };
  }
  const fn = /^rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)$/.exec(s);
  if (fn) {
    const alpha = fn[4] === undefined ? 1 : fn[4].endsWith('%') ? Number(fn[4].slice(0, -1)) / 100 : Number(fn[4]);
    return { r: Number(fn[1]), g: Number(fn[2]), b: Number(fn[3]), a: alpha };
  }
  throw new Error(`not a colour this helper reads: ${css}`);
}

/** `top` painted over `bottom` (source-over); the result is opaque when `bottom` is. */
export function over(top: string | Rgba, bottom: string | Rgba): Rgba {
  const t = typeof top === 'string' ? parseColor(top) : top;
  const b = typeof bottom === 'string' ? parseColor(bottom) : bottom;
  const a = t.a + b.a * (1 - t.a);
  if (a === 0) return { r: 0, g: 0, b: 0, a: 0 };
  const mix = (x: number, y: number) => (x * t.a + y * b.a * (1 - t.a)) / a;
  return { r: mix(t.r, b.r), g: mix(t.g, b.g), b: mix(t.b, b.b), a };
}

/** Composites a stack of layers, topmost first, down to an opaque base. */
export function flatten(...layers: Array<string | Rgba>): Rgba {
  const stack = layers.map((l) => (typeof l === 'string' ? parseColor(l) : l));
  let acc = stack[stack.length - 1];
  if (acc.a !== 1) throw new Error('the last layer must be opaque');
  for (let i = stack.length - 2; i >= 0; i--) acc = over(stack[i], acc);
  return acc;
}

export function relativeLuminance(c: string | Rgba): number {
  const { r, g, b, a } = typeof c === 'string' ? parseColor(c) : c;
  if (a !== 1) throw new Error('relative luminance of a translucent colour: composite it first');
  const lin = (v: number) => {
    const s = v / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** (L1 + 0.05) / (L2 + 0.05), lighter over darker: 1 to 21. Translucent text is composited over the background. */
export function contrastRatio(text: string | Rgba, background: string | Rgba): number {
  const bg = typeof background === 'string' ? parseColor(background) : background;
  const fg = over(text, bg);
  const [l1, l2] = [relativeLuminance(fg), relativeLuminance(bg)].sort((x, y) => y - x);
  return (l1 + 0.05) / (l2 + 0.05);
}

/** WCAG AA for normal-size text. */
export const AA_TEXT = 4.5;
