#!/usr/bin/env node
// `cotaverde` bin: runs the built CLI (dist/cli/index.cjs, plain JavaScript: no TypeScript loader
// at start), rebuilding it first when a source changed or it is missing (cli/build.cjs, esbuild).
// When it cannot be built (esbuild not installed, a compile error) it says why on stderr and runs
// the TypeScript sources through tsx instead. `db` commands always run the sources: the
// migrations and the demo seed are TypeScript files loaded at run time.
'use strict';
const argv = process.argv.slice(2);
// `cotaverde … | head`: the reader leaving early ends the command quietly, not with an EPIPE trace.
process.stdout.on('error', (e) => (e && e.code === 'EPIPE' ? process.exit(0) : Promise.reject(e)));
const wantsHelp = argv.includes('-h') || argv.includes('--help');

function runSources() {
  require('tsx/cjs');
  return require('./index.ts');
}

function load() {
  if (argv[0] === 'db' && !wantsHelp) return runSources();
  const build = require('./build.cjs');
  const stale = build.staleReason();
  if (stale) {
    try {
      build.buildCli();
    } catch (e) {
      // esbuild's errors carry their place; anything else (esbuild not installed) its message.
      const first = e && e.errors && e.errors[0];
      const why = first
        ? `${first.location ? `${first.location.file}:${first.location.line}: ` : ''}${first.text}`
        : e instanceof Error
          ? e.message.split('\n')[0]
          : String(e);
      process.stderr.write(`cotaverde: não foi possível compilar o CLI (${stale}; ${why}); usando o código TypeScript (mais lento)\n`);
      return runSources();
    }
  }
  return require(build.OUT);
}

load()
  .runCli(argv)
  .then((code) => process.exit(code));
