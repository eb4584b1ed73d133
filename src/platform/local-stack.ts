import { isProductionEnv } from './config';

/**
 * Where `npm start` runs its own PostgreSQL and Redis when DATABASE_URL / REDIS_URL
 * are unset (scripts/provision.ts). The CLI run from the checkout falls back to
 * them too, so `npm run cli -- …` works beside a running `npm start`.
 */
export const LOCAL_STACK = {
  pgPort: Number(process.env.EMBEDDED_PG_PORT ?? 54329),
  redisPort: Number(process.env.EMBEDDED_REDIS_PORT ?? 6390),
  database: 'cotaverde',
};

export function localStackUrls() {
  return {
    DATABASE_URL: `postgres://postgres:postgres@127.0.0.1:${LOCAL_STACK.pgPort}/${LOCAL_STACK.database}`,
    REDIS_URL: `redis://127.0.0.1:${LOCAL_STACK.redisPort}`,
  };
}

/** The environment with the local stack's URLs filled in where unset (never in production). */
export function withLocalStackDefaults(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (isProductionEnv(env.NODE_ENV)) return env;
  const local = localStackUrls();
  return { ...env, DATABASE_URL: env.DATABASE_URL || local.DATABASE_URL, REDIS_URL: env.REDIS_URL || local.REDIS_URL };
}

