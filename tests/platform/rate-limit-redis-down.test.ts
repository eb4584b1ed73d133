import { createRedis } from '../../src/platform/redis';
import { createRateLimits, LIMITS } from '../../src/platform/rate-limit';
import { DomainError } from '../../src/platform/errors';

// Nothing listens on port 1: every Redis command fails.
const dead = createRedis('redis://127.0.0.1:1', 'dead', 'fail-fast');
dead.on('error', () => {});
afterAll(() => dead.disconnect());

test('with Redis unreachable, limits still answer and still limit (per-process fallback)', async () => {
  const limits = createRateLimits(dead, 'down', false);
  for (let i = 0; i < LIMITS.login.points; i++) await expect(limits.hit('login', 'ip:9.9.9.9')).resolves.toBeUndefined();
  const err = await limits.hit('login', 'ip:9.9.9.9').catch((e) => e);
  expect(err).toBeInstanceOf(DomainError);
  expect(err.code).toBe('rate_limited');
  await expect(limits.reset('login', 'ip:9.9.9.9')).resolves.toBeUndefined();
});
