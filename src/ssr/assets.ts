import fs from 'node:fs';
import path from 'node:path';

/** One entry of Vite's build manifest (web/dist/.vite/manifest.json, build.manifest in web/vite.config.mts). */
interface ManifestChunk {
  file: string;
  imports?: string[];
  css?: string[];
}

/** The entry (index.html) and the lazily loaded page components a public page renders, as the manifest names them. */
export const ENTRY = 'index.html';

/**
 * The client build the pages are rendered into: its index.html (the app shell), its manifest and
 * the CSS files to inline, read once per build (a new index.html on disk is a new build).
 */
export class WebBuild {
  private loaded: { mtimeMs: number; template: string; manifest: Record<string, ManifestChunk>; css: Map<string, string> } | null = null;

  constructor(readonly dir: string) {}

  private current() {
    const index = path.join(this.dir, 'index.html');
    const mtimeMs = fs.statSync(index).mtimeMs;
    if (this.loaded?.mtimeMs !== mtimeMs) {
      this.loaded = {
        mtimeMs,
        template: fs.readFileSync(index, 'utf8'),
        manifest: JSON.parse(fs.readFileSync(path.join(this.dir, '.vite', 'manifest.json'), 'utf8')) as Record<string, ManifestChunk>,
        css: new Map(),
      };
    }
    return this.loaded;
  }

  /**
   * The chunks `sources` (manifest keys: the entry, the lazily loaded components the page renders)
   * need before they run, by static imports: their JS files and their CSS, in load order.
   */
  assetsOf(sources: readonly string[]): { js: string[]; css: string[] } {
    const { manifest } = this.current();
    const js = new Set<string>();
    const css = new Set<string>();
    const seen = new Set<string>();
    const visit = (key: string) => {
      if (seen.has(key)) return;
      seen.add(key);
      const chunk = manifest[key];
      if (!chunk) return;
      for (const dep of chunk.imports ?? []) visit(dep);
      js.add(chunk.file);
      for (const c of chunk.css ?? []) css.add(c);
    };
    for (const s of sources) visit(s);
    return { js: [...js], css: [...css] };
  }

  /** Changes with every new build (the time index.html was written). */
  version(): string {
    return String(this.current().mtimeMs);
  }

  template(): string {
    return this.current().template;
  }

  /** The text of a built CSS file (web/dist/assets/…), kept for the build's life. */
  cssText(file: string): string {
    const { css } = this.current();
    let text = css.get(file);
    if (text === undefined) {
      text = fs.readFileSync(path.join(this.dir, file), 'utf8');
      css.set(file, text);
    }
    return text;
  }
}
