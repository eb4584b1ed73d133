/** Prints rows as JSON (--json) or as an aligned text table. */
export function printRows(rows: Array<Record<string, unknown>>, json: boolean, columns?: string[]) {
  if (json) {
    process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
    return;
  }
  if (!rows.length) {
    process.stdout.write('(nenhum registro)\n');
    return;
  }
  const cols = columns ?? Object.keys(rows[0]);
  const cell = (v: unknown) => (v instanceof Date ? v.toISOString() : v == null ? '' : String(v));
  const widths = cols.map((c) => Math.min(60, Math.max(c.length, ...rows.map((r) => cell(r[c]).length))));
  const line = (vals: string[]) => vals.map((v, i) => v.slice(0, 60).padEnd(widths[i])).join('  ').trimEnd();
  process.stdout.write(line(cols) + '\n' + line(widths.map((w) => '-'.repeat(w))) + '\n');
  for (const r of rows) process.stdout.write(line(cols.map((c) => cell(r[c]))) + '\n');
}
