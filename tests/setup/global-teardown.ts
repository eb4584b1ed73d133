/** Ends what global-setup.ts held up for a jest started on its own (nothing under `npm test`). */
import { held } from './global-setup';

export default async function globalTeardown(): Promise<void> {
  const child = held.child;
  if (!child) return;
  held.child = null;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdin?.end();
  await exited;
}
