import fs from 'node:fs';
import path from 'node:path';

/**
 * Links in e-mails use PUBLIC_URL whichever process sends them. Outside production PUBLIC_URL
 * may be unset: the web process then announces the address it serves (this file, keyed by its
 * database), and the CLI and the worker on the same database build their links with it instead
 * of guessing http://localhost:3000.
 */
export const WEB_URL_FILE = path.resolve(__dirname, '../../.data/web-url.json');

export function announceWebUrl(url: string, databaseUrl: string, file = WEB_URL_FILE) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ url, databaseUrl }) + '\n');
}

/** The announced web address for this database, if any. */
export function announcedWebUrl(databaseUrl: string | undefined, file = WEB_URL_FILE): string | null {
  if (!databaseUrl) return null;
  try {
    const a = JSON.parse(fs.readFileSync(file, 'utf8')) as { url?: unknown; databaseUrl?: unknown };
    return a.databaseUrl === databaseUrl && typeof a.url === 'string' && /^https?:\/\//.test(a.url) ? a.url : null;
  } catch {
    return null;
  }
}
