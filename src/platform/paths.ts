import fs from 'node:fs';
import path from 'node:path';

/**
 * Where the checkout is, whether this code runs as TypeScript (tsx, jest: src/…/*.ts) or from the
 * built bundles (`npm run build`: dist/src/bin/web.js, dist/jobs/worker.js, dist/cli/index.js,
 * where `__dirname` is the bundle's folder): the nearest folder above with a package.json.
 */
function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(from, '../..');
  }
}

export const PROJECT_ROOT = findRoot(__dirname);

/** True when running from the built JavaScript (dist/), false under a TypeScript loader. */
export const RUNNING_BUILT = !__filename.endsWith('.ts');
