// The `cotaverde` CLI's build: one CommonJS file, dist/cli/index.cjs, made by esbuild from
// cli/index.ts with every npm package left external. Modules the CLI loads lazily (the services,
// each `require`d by src/services.ts on first use) stay unevaluated in the bundle until an action needs them, so `--help`
// runs commander and the command definitions only. Plain JavaScript on purpose: cli/bin.cjs
// calls it before any TypeScript can run. `node cli/build.cjs` builds; the project build can
// `require('./cli/build.cjs').buildCli()`.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const OUT_DIR = path.join(ROOT, 'dist', 'cli');
const OUT = path.join(OUT_DIR, 'index.cjs');
/** The source files the last build read (from esbuild's metafile): the staleness check's list. */
const INPUTS = path.join(OUT_DIR, 'inputs.json');

/** Builds dist/cli/index.cjs (about a tenth of a second); throws when esbuild is missing or the code does not compile. */
function buildCli() {
  const esbuild = require('esbuild');
  const result = esbuild.buildSync({
    absWorkingDir: ROOT,
    entryPoints: ['cli/index.ts'],
    outfile: OUT,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    minifyWhitespace: true,
    minifySyntax: true,
    metafile: true,
    write: false,
    logLevel: 'silent',
    banner: { js: '// Built from cli/index.ts by cli/build.cjs: do not edit.' },
  });
  const inputs = Object.keys(result.metafile.inputs).filter((f) => !f.startsWith('node_modules/'));
  // Written aside and renamed into place: a `cotaverde` started meanwhile reads the old file or the new one, never half of one.
  fs.mkdirSync(OUT_DIR, { recursive: true });
  const files = [...result.outputFiles.map((f) => [f.path, f.contents]), [INPUTS, JSON.stringify(inputs, null, 1) + '\n']];
  for (const [file, contents] of files) {
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, contents);
    fs.renameSync(tmp, file);
  }
  return { outfile: OUT, inputs: inputs.length };
}

/** Why the built CLI must be (re)built, or null when it is up to date with its sources. */
function staleReason() {
  let built;
  try {
    built = fs.statSync(OUT).mtimeMs;
  } catch {
    return 'dist/cli/index.cjs não existe';
  }
  let inputs;
  try {
    inputs = JSON.parse(fs.readFileSync(INPUTS, 'utf8'));
  } catch {
    return 'dist/cli/inputs.json não existe';
  }
  for (const f of inputs) {
    let m;
    try {
      m = fs.statSync(path.join(ROOT, f)).mtimeMs;
    } catch {
      return `${f} não existe mais`;
    }
    if (m > built) return `${f} mudou`;
  }
  return null;
}

module.exports = { buildCli, staleReason, OUT };

if (require.main === module) {
  const t0 = Date.now();
  try {
    const r = buildCli();
    console.log(`[cotaverde] CLI compilado: ${path.relative(ROOT, r.outfile)} (${r.inputs} arquivos, ${Date.now() - t0} ms)`);
  } catch (e) {
    console.error(`[cotaverde] falha ao compilar o CLI: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  }
}
