import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { build, defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

const webRoot = fileURLToPath(new URL('.', import.meta.url));
const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/** Where the build describes its chunks (file → source modules); a dot folder, so the server never serves it. */
const CHUNK_MAP = '.vite/chunks.json';

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/**
 * Writes `<file>.br` (quality 11) and `<file>.gz` (level 9) next to every text file of the build
 * (JS, CSS, HTML, SVG, JSON of at least 1 KiB), when smaller than the file. The server
 * (src/platform/http/static.ts, koa-send) sends them to browsers that accept the encoding, so the
 * best compression is paid for once at build time instead of on every request.
 */
function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'cotaverde:precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    async closeBundle() {
      const files = (await fs.readdir(outDir, { recursive: true, withFileTypes: true }))
        .filter((e) => e.isFile() && /\.(js|css|html|svg|json)$/.test(e.name))
        .map((e) => path.join(e.parentPath, e.name))
        .filter(
          (f) =>
            !path
              .relative(outDir, f)
              .split(path.sep)
              .some((part) => part.startsWith('.')),
        );
      await Promise.all(
        files.map(async (file) => {
          const raw = await fs.readFile(file);
          if (raw.length < 1024) return;
          const br = await brotli(raw, {
            params: {
              [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
              [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
              [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
            },
          });
          const gz = await gzip(raw, { level: zlib.constants.Z_BEST_COMPRESSION });
          if (br.length < raw.length) await fs.writeFile(`${file}.br`, br);
          if (gz.length < raw.length) await fs.writeFile(`${file}.gz`, gz);
        }),
      );
    },
  };
}

/** Module id → where it comes from: `web/src/...`, `src/shared/...` or the npm package name. */
function moduleLabel(id: string): string {
  const clean = id.replace(/^\0/, '').replace(/\?.*$/, '');
  const nm = clean.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = clean.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  return path.isAbsolute(clean) ? path.relative(repoRoot, clean) : clean;
}

/**
 * Emits `.vite/chunks.json`: for each JS chunk, its name, whether it is the entry or a lazily
 * loaded one, and the rendered bytes of each source (module or npm package) in it. bench/bundle.ts
 * reads it to name the chunks the home page downloads and to prove that no account or admin code
 * is among them.
 */
function chunkMap(): Plugin {
  return {
    name: 'cotaverde:chunk-map',
    apply: 'build',
    generateBundle(_options, bundle) {
      const chunks: Record<string, { name: string; isEntry: boolean; isDynamicEntry: boolean; sources: Record<string, number> }> = {};
      for (const out of Object.values(bundle)) {
        if (out.type !== 'chunk') continue;
        const sources: Record<string, number> = {};
        for (const [id, info] of Object.entries(out.modules)) {
          const label = moduleLabel(id);
          sources[label] = (sources[label] ?? 0) + info.renderedLength;
        }
        chunks[out.fileName] = { name: out.name, isEntry: out.isEntry, isDynamicEntry: out.isDynamicEntry, sources };
      }
      this.emitFile({ type: 'asset', fileName: CHUNK_MAP, source: `${JSON.stringify(chunks, null, 1)}\n` });
    },
  };
}

/** Where the server build of the public pages goes (web/src/entry-server.tsx; gitignored). */
const SSR_OUT_DIR = 'dist-ssr';

/**
 * After the client build, the server build of the same app (web/src/entry-server.tsx, CommonJS
 * files in web/dist-ssr, React and the other packages left in node_modules): every
 * `vite build --config web/vite.config.mts` (npm run build:web, npm start, npm test) makes both,
 * so the web process never renders with components older than the scripts it sends.
 */
function serverBuild(): Plugin {
  let isClientBuild = false;
  return {
    name: 'cotaverde:server-build',
    apply: 'build',
    configResolved(config) {
      isClientBuild = !config.build.ssr;
    },
    async closeBundle() {
      if (!isClientBuild) return;
      await build({
        configFile: fileURLToPath(import.meta.url),
        logLevel: 'warn',
        build: { ssr: 'src/entry-server.tsx', outDir: SSR_OUT_DIR, emptyOutDir: true, manifest: false, copyPublicDir: false },
      });
    },
  };
}

// The SPA lives in web/ and is built into web/dist, which the API server serves in production.
// Run from the repo root: node node_modules/vite/bin/vite.js build --config web/vite.config.mts
export default defineConfig(({ command, isSsrBuild }) => {
  // A build is always a production build: with NODE_ENV=development in the environment Vite would
  // otherwise bundle React's development build (jsxDEV, warnings, absolute source paths).
  // Vite reads NODE_ENV after loading this file, so setting it here is enough.
  if (command === 'build') process.env.NODE_ENV = 'production';
  if (isSsrBuild) {
    return {
      root: webRoot,
      plugins: [react()],
      // One self-contained file set (packages bundled in): required the same way by the web
      // process, its built bundle and jest, whatever each package's module format.
      ssr: { noExternal: true },
      // Production React and antd (no development checks) whatever NODE_ENV the server runs with.
      define: { 'process.env.NODE_ENV': JSON.stringify('production') },
      build: {
        outDir: SSR_OUT_DIR,
        emptyOutDir: true,
        // CommonJS, so the web process (and jest) can require() it on Node 20.
        rolldownOptions: { output: { format: 'cjs', entryFileNames: '[name].cjs', chunkFileNames: 'chunks/[name]-[hash].cjs' } },
      },
    };
  }
  return {
    root: webRoot,
    plugins: [react(), chunkMap(), precompress(), serverBuild()],
    build: {
      // .vite/manifest.json: the server-rendered pages inline their route's CSS and preload its
      // chunks from it (src/ssr/assets.ts).
      manifest: true,
      outDir: 'dist',
      emptyOutDir: true,
      chunkSizeWarningLimit: 600,
      rolldownOptions: {
        output: {
          // React and the router change rarely: keep them in their own long-cached chunk.
          codeSplitting: {
            groups: [{ name: 'react', test: /node_modules[\\/](react|react-dom|react-router|react-router-dom|scheduler)[\\/]/ }],
          },
        },
      },
    },
    server: {
      // web/src imports the shared registration rules from ../src/shared.
      fs: { allow: [repoRoot] },
      proxy: {
        '/api': { target: 'http://localhost:3000', changeOrigin: true },
      },
    },
    preview: {
      proxy: {
        '/api': { target: 'http://localhost:3000', changeOrigin: true },
      },
    },
  };
});
