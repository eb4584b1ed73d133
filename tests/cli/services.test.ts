import { Redis } from 'ioredis';
import { createTestContext, type TestContext } from '../helpers/context';
import { createServices } from '../../src/services';
import { makeDraw } from '../draws/fixtures';

/**
 * The one composition root (createServices) as every CLI command uses it: each service built on
 * first use; a draw changed from the CLI still reaches the web processes' read caches.
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

test('offers every service createServices offers, builds none until asked, and closes without connecting anything', async () => {
  const s = createServices({ config: t.services.config });
  expect(Object.keys(s).sort()).toEqual(Object.keys(t.services).sort());
  await expect(s.close()).resolves.toBeUndefined();
});

test('a service works against the real database, and close() ends what it opened', async () => {
  const d = await makeDraw(t, { title: 'Sorteio Preguiçoso' });
  const s = createServices({ config: t.services.config });
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
  const s = createServices({ config: t.services.config });
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
