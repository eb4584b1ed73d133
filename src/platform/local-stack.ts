import fs from 'node:fs';
import path from 'node:path';
import { isProductionEnv } from './config';
import { PROJECT_ROOT } from './paths';

/** Where `npm start` remembers the ports it chose for this checkout (scripts/provision.ts planAppPorts); COTAVERDE_PORTS_FILE moves it (tests). */
export const APP_PORTS_FILE = process.env.COTAVERDE_PORTS_FILE || path.join(PROJECT_ROOT, '.data', 'app', 'ports.json');

export interface AppPorts {
  pg: number;
  redis: number;
  web: number;
  metrics: number;
}
export const APP_PORT_DEFAULTS: AppPorts = { pg: 54329, redis: 6390, web: 3000, metrics: 9464 };

/** The ports `npm start` last chose for this checkout (none remembered: {}). */
export function rememberedAppPorts(file = APP_PORTS_FILE): Partial<AppPorts> {
  try {
    const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    const out: Partial<AppPorts> = {};
    for (const k of ['pg', 'redis', 'web', 'metrics'] as const) {
      const v = Number(raw[k]);
      if (Number.isInteger(v) && v > 0 && v < 65536) out[k] = v;
    }
    return out;
  } catch {
    return {};
  }
}

const remembered = rememberedAppPorts();

/**
 * Where `npm start` runs its own PostgreSQL and Redis when DATABASE_URL / REDIS_URL
 * are unset (scripts/provision.ts): EMBEDDED_PG_PORT / EMBEDDED_REDIS_PORT, else the ports it
 * last chose (.data/app/ports.json), else the defaults. The CLI run from the checkout falls back
 * to them too, so `npm run cli -- …` works beside a running `npm start`.
 */
export const LOCAL_STACK = {
  pgPort: Number(process.env.EMBEDDED_PG_PORT || remembered.pg || APP_PORT_DEFAULTS.pg),
  redisPort: Number(process.env.EMBEDDED_REDIS_PORT || remembered.redis || APP_PORT_DEFAULTS.redis),
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
