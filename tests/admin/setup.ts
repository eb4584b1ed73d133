import { createTestContext, createUser, type TestContext } from '../helpers/context';

export type TestUser = Awaited<ReturnType<typeof createUser>>;

/**
 * The usual start of an admin test file: the app with rate limiting off and one admin
 * (`adminFields` e.g. its name). Call it in beforeAll; close `t` in afterAll.
 */
export async function adminContext(adminFields: { name?: string } = {}): Promise<{ t: TestContext; admin: TestUser }> {
  const t = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1' } });
  const admin = await createUser(t, { admin: true, ...adminFields });
  return { t, admin };
}
