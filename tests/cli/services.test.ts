import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { createTestContext, type TestContext } from '../helpers/context';
import { createCliServices } from '../../cli/services';
import { makeDraw } from '../draws/fixtures';

/**
 * The CLI's lazy composition root (cli/services.ts): the same services as createServices, each
 * built on first use; a draw changed from the CLI still reaches the web processes' read caches.
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

test('offers every service createServices offers, builds none until asked, and closes without connecting anything', async () => {
  const s = createCliServices(t.services.config);
  expect(Object.keys(s).sort()).toEqual(Object.keys(t.services).sort());
  await expect(s.close()).resolves.toBeUndefined();
});

test('a service works against the real database, and close() ends what it opened', async () => {
  const d = await makeDraw(t, { title: 'Sorteio Preguiçoso' });
  const s = createCliServices(t.services.config);
  try {
    const page = await s.adminDraws.list({ limit: 200 });
    expect(page.items.map((x) => x.id)).toContain(d.id);
    expect(s.draws).toBe(s.draws); // built once
  } finally {
    await s.close();
  }
  await expect(s.db.raw('select 1')).rejects.toThrow();
});

test("a draw closed through the CLI's services invalidates the web processes' caches (the read-cache bus)", async () => {
  const channel = `${t.services.config.queuePrefix}:read-cache`;
  const sub = new Redis(t.services.config.redisUrl, { maxRetriesPerRequest: null });
  const messages: Array<{ o: string; m: { kind: string } }> = [];
  sub.on('message', (ch: string, raw: string) => {
    if (ch === channel) messages.push(JSON.parse(raw));
  });
  await sub.subscribe(channel);
  const waitFor = async (ok: () => boolean) => {
    const deadline = Date.now() + 20_000;
    while (!ok() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(ok()).toBe(true);
  };
  // The test context's own services publish makeDraw's invalidation: note their origin.
  const d = await makeDraw(t, { title: 'Sorteio Barramento' });
  await waitFor(() => messages.length > 0);
  const contextOrigins = new Set(messages.map((m) => m.o));
  const s = createCliServices(t.services.config);
  try {
    await s.adminDraws.setStatus(null, d.id, { status: 'closed' });
    // The CLI's bus is built on its first invalidation, and that invalidation is published too.
    await waitFor(() => messages.some((m) => !contextOrigins.has(m.o)));
    expect(messages.filter((m) => !contextOrigins.has(m.o)).map((m) => m.m)).toEqual([{ kind: 'all' }]);
  } finally {
    await s.close();
    sub.disconnect();
  }
});

/**
 * The wiring itself, compared in the sources: every factory createServices calls with an object of
 * dependencies (`createX({ db, logger, … })`), cli/services.ts calls too, with the same names. A
 * dependency added to createServices but optional in the factory's type (so no compile error)
 * shows here.
 */
test('cli/services.ts passes every factory the same dependencies as src/services.ts', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ts = require('typescript') as typeof import('typescript');
  const ROOT = path.resolve(__dirname, '../..');
  const factoryCalls = (file: string) => {
    const src = ts.createSourceFile(file, fs.readFileSync(path.join(ROOT, file), 'utf8'), ts.ScriptTarget.ES2022, true);
    const calls = new Map<string, Set<string>>();
    const visit = (n: import('typescript').Node) => {
      if (ts.isCallExpression(n)) {
        const callee = n.expression;
        const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : '';
        const arg = n.arguments[0];
        if (/^create[A-Z]/.test(name) && name !== 'createServices' && arg && ts.isObjectLiteralExpression(arg)) {
          const keys = calls.get(name) ?? new Set<string>();
          for (const p of arg.properties) if (p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))) keys.add(p.name.text);
          calls.set(name, keys);
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(src);
    return calls;
  };
  const app = factoryCalls('src/services.ts');
  const cli = factoryCalls('cli/services.ts');
  expect(app.size).toBeGreaterThan(20);
  const asObject = (m: Map<string, Set<string>>) => Object.fromEntries([...m].map(([k, v]) => [k, [...v].sort()]));
  expect(asObject(cli)).toEqual(asObject(app));
});
