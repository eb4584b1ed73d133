import type { Db } from './db';

export interface Installation {
  /** A uuid made once per database (migration 20261127120000_installation). */
  id: string;
  /** A random EVP PIX key made with it: the sandbox's default PIX key, which nobody can own. */
  pixEvp: string;
}

/**
 * This database's installation row, read once and kept (it never changes). Idempotency keys sent to
 * a payment provider start with its id (RULES P8), so a reset database or a second store on the
 * same provider account never gets another payment's answer.
 */
export function installationOf(db: Db): () => Promise<Installation> {
  let loaded: Promise<Installation> | null = null;
  return () => {
    loaded ??= db('installation')
      .first('id', 'pix_evp')
      .then((r: { id: string; pix_evp: string } | undefined) => {
        if (!r) throw new Error('installation row missing: run the migrations');
        return { id: r.id, pixEvp: r.pix_evp };
      })
      .catch((e) => {
        loaded = null;
        throw e;
      });
    return loaded;
  };
}
