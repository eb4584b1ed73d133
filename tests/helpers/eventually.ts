/** Polls until fn returns a truthy value (generous ceiling, no timing assertion). */
export async function eventually<T>(fn: () => Promise<T>, what: string, ms = 20_000, everyMs = 50): Promise<NonNullable<T>> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
