#!/usr/bin/env node
// The only JavaScript file of the project, on purpose: on a fresh clone nothing
// can run TypeScript until dependencies are installed. It installs them when the
// lock file changed since the last install, then hands over to scripts/stack.ts.
import { spawnSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stamp = path.join(root, 'node_modules', '.cotaverde-install-stamp');
const hashOf = (f) =>
  createHash('sha256')
    .update(fs.readFileSync(path.join(root, f)))
    .digest('hex');
const want = hashOf('package.json') + ':' + hashOf('package-lock.json');
const have = fs.existsSync(stamp) ? fs.readFileSync(stamp, 'utf8') : '';

if (want !== have) {
  console.log('[cotaverde] instalando dependências (npm install)…');
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--include=dev'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (r.status !== 0) {
    console.error('[cotaverde] npm install falhou; veja a saída acima.');
    process.exit(r.status ?? 1);
  }
  // npm may rewrite the lock file: stamp what is there now.
  fs.writeFileSync(stamp, hashOf('package.json') + ':' + hashOf('package-lock.json'));
}

// `npm start` runs the stack in its own process group: a Ctrl-C in the terminal reaches this
// process only, which passes it on; the stack then stops the web and the worker first and
// PostgreSQL and Redis after them (in the terminal's group they would all get SIGINT at once,
// and the databases would go while the worker still finishes its jobs).
const detached = process.argv[2] === 'start';
const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'stack.ts'), ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  detached,
});
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
