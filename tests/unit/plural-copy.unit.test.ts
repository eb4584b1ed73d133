import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/**
 * Issue 26: counts shown to people take the right form ("1 voucher", "2 vouchers"), written with
 * plural()/countOf() from src/shared/plural.ts, never the "voucher(s)" / "migração(ões)" shortcut.
 * This scans every string literal, template piece and JSX text of the server (src/), the web
 * (web/src) and the CLI (cli/) — comments are not read, so notes in English may say "lot(s)".
 */
const ROOT = join(__dirname, '..', '..');
const DIRS = ['src', 'web/src', 'cli'];

/** A letter followed by "(s)", "(es)", "(ões)", "(ns)", "(is)", "(a)", "(as)", "(os)": a plural (or gender) shortcut. */
const SHORTCUT = /\p{L}\((?:s|es|ões|ãos|ães|ns|is|a|as|os)\)/u;
/** Not plurals: a URL scheme written the usual way. */
const ALLOWED = [/\bhttp\(s\)/g];

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === 'dist') continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(p));
    else if (/\.(ts|tsx|mts|cts)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** The texts of a file that can reach a person: string literals, template pieces, JSX text. */
function textsOf(file: string): Array<{ line: number; text: string }> {
  const code = readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out: Array<{ line: number; text: string }> = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node) ||
      ts.isJsxText(node)
    ) {
      out.push({ line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1, text: node.text });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

export function pluralShortcuts(files: string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    for (const { line, text } of textsOf(file)) {
      const cleaned = ALLOWED.reduce((t, re) => t.replace(re, ''), text);
      const m = SHORTCUT.exec(cleaned);
      if (m) found.push(`${relative(ROOT, file)}:${line}: “${m[0]}” in ${JSON.stringify(text.trim().slice(0, 120))}`);
    }
  }
  return found;
}

describe('plural shortcuts in texts people read', () => {
  const files = DIRS.flatMap((d) => sourceFiles(join(ROOT, d)));

  it('scans the server, the web and the CLI (the scan sees their files)', () => {
    expect(files.some((f) => f.includes(join('src', 'draws')))).toBe(true);
    expect(files.some((f) => f.includes(join('web', 'src', 'pages')) && f.endsWith('.tsx'))).toBe(true);
    expect(files.some((f) => f.includes(join('cli', 'commands')))).toBe(true);
  });

  it('finds the shortcut in literals, templates and JSX, and not in comments or http(s)', () => {
    const probe = (code: string, name = 'probe.tsx') => {
      const dir = join(ROOT, 'node_modules', '.cache', 'plural-copy-probe');
      mkdirSync(dir, { recursive: true });
      const f = join(dir, name);
      writeFileSync(f, code);
      return pluralShortcuts([f]);
    };
    expect(probe("const a = 'Você tem 1 voucher(s)';")).toHaveLength(1);
    expect(probe('const a = (n: number) => `${n} migração(ões) desconhecida(s)`;')).toHaveLength(1);
    expect(probe('export const A = () => <p>Escolha {2} número(s) agora</p>;')).toHaveLength(1);
    expect(probe("// records the lot(s) it spent\nconst a = 'use um endereço http(s)';")).toHaveLength(0);
  });

  it('none remain in src/, web/src and cli/', () => {
    expect(pluralShortcuts(files)).toEqual([]);
  });
});
