import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { childProcessEnv, createTestContext, type TestContext } from '../helpers/context';
import { runCliCaptured, STACK } from '../helpers/cli';
import { buildCli } from '../../cli/index';
import { brasilia, brl, cellText } from '../../cli/output';
import { translateCommanderMessage } from '../../cli/portuguese';
import { makeDraw, makeProduct } from '../draws/fixtures';

/**
 * The operator CLI in Portuguese (commander's own texts included; tables with R$ and Brasília
 * time, --json raw) and the built CLI loading only what a command needs.
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

const cli = (argv: string[]) => runCliCaptured(argv, () => t.services);

/** Commander's English texts: none may reach an operator. */
const ENGLISH =
  /\b(Usage|Options|Commands|Arguments|display help|default:|error:|unknown option|unknown command|missing required|not specified|Did you mean)\b|\[options\]|\[command\]/;

function commandPaths(cmd: Command, prefix: string[] = []): string[][] {
  return cmd.commands.flatMap((c) => [[...prefix, c.name()], ...commandPaths(c, [...prefix, c.name()])]);
}
const paths = commandPaths(buildCli(() => t.services)).filter((p) => p[p.length - 1] !== 'help');

describe("commander's texts in Portuguese", () => {
  test('cotaverde --help: Portuguese titles, usage, help option and help command', async () => {
    const r = await cli(['--help']);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toMatch(/^Uso: cotaverde \[opções\] \[comando\]\n/);
    expect(r.out).toContain('\nOpções:\n');
    expect(r.out).toContain('\nComandos:\n');
    expect(r.out).toMatch(/-h, --help\s+mostra a ajuda do comando/);
    expect(r.out).toMatch(/help \[comando\]\s+mostra a ajuda de um comando/);
    expect(r.out).not.toMatch(ENGLISH);
  });

  test.each(paths.map((p) => [p.join(' '), p]))('%s --help is Portuguese', async (_name, p) => {
    const r = await cli([...(p as string[]), '--help']);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toMatch(new RegExp(`^Uso: cotaverde ${(p as string[]).join(' ')} `));
    expect(r.out).toContain('\nOpções:\n');
    expect(r.out).toMatch(/-h, --help\s+mostra a ajuda do comando/);
    expect(r.out).not.toMatch(ENGLISH);
  });

  test('defaults show as "padrão", arguments under "Argumentos:"', async () => {
    const list = await cli(['draws', 'list', '--help']);
    expect(list.out).toMatch(/--limit <n>\s+quantidade \(1-200\) \(padrão: "50"\)/);
    const show = await cli(['draws', 'show', '--help']);
    expect(show.out).toMatch(/^Uso: cotaverde draws show \[opções\] <id>\n/);
    expect(show.out).toMatch(/\nArgumentos:\n\s+id\s+id do sorteio\n/);
  });

  test('the help command: `cotaverde help draws` prints the group help in Portuguese', async () => {
    const r = await cli(['help', 'draws']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Uso: cotaverde draws \[opções\] \[comando\]\n/);
    expect(r.out).toMatch(/list \[opções\]\s+lista os sorteios/);
    expect(r.out).not.toMatch(ENGLISH);
  });

  test('an unknown option: Portuguese message, usage after it, exit code 2, nothing on stdout', async () => {
    const r = await cli(['draws', 'list', '--frobnicate']);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^erro: opção desconhecida '--frobnicate'\n/);
    expect(r.err).toContain('Uso: cotaverde draws list [opções]');
    expect(r.err).not.toMatch(ENGLISH);
    expect(r.err).not.toMatch(STACK);
  });

  test('a misspelt option and command get a Portuguese suggestion', async () => {
    const opt = await cli(['draws', 'list', '--limt', '5']);
    expect(opt.code).toBe(2);
    expect(opt.err).toMatch(/^erro: opção desconhecida '--limt'\n\(Você quis dizer --limit\?\)/);
    const cmd = await cli(['draws', 'lst']);
    expect(cmd.code).toBe(2);
    expect(cmd.err).toMatch(/^erro: comando desconhecido 'lst'\n\(Você quis dizer list\?\)/);
    expect(opt.err + cmd.err).not.toMatch(ENGLISH);
  });

  test('a missing argument, a missing required option, too many arguments: Portuguese, exit 2', async () => {
    const arg = await cli(['winners', 'show']);
    expect(arg.code).toBe(2);
    expect(arg.err).toMatch(/^erro: falta o argumento obrigatório 'drawId'/);
    const opt = await cli(['draws', 'open']);
    expect(opt.code).toBe(2);
    expect(opt.err).toMatch(/^erro: a opção obrigatória '--product <sku>' não foi informada/);
    const many = await cli(['draws', 'show', '1', '2']);
    expect(many.code).toBe(2);
    expect(many.err).toMatch(/^erro: argumentos demais para 'show': esperava 1, recebeu 2\./);
    for (const r of [arg, opt, many]) expect(r.err).not.toMatch(ENGLISH);
  });

  test('the translation covers every message commander 14 writes, and leaves the CLI’s own alone', () => {
    expect(translateCommanderMessage("error: option '--limit <n>' argument missing")).toBe("erro: falta o valor da opção '--limit <n>'");
    expect(translateCommanderMessage("error: option '--x <v>' argument 'y' is invalid. deve ser número")).toBe(
      "erro: valor 'y' inválido para a opção '--x <v>'. deve ser número",
    );
    expect(translateCommanderMessage("error: command-argument value 'a' is invalid for argument 'email'. informe o e-mail")).toBe(
      "erro: valor 'a' inválido para o argumento 'email'. informe o e-mail",
    );
    expect(translateCommanderMessage('error: too many arguments. Expected 0 arguments but got 1.')).toBe(
      'erro: argumentos demais: esperava 0, recebeu 1.',
    );
    expect(translateCommanderMessage("error: unknown command 'x'\n(Did you mean one of a, b?)")).toBe(
      "erro: comando desconhecido 'x'\n(Você quis dizer um destes: a, b?)",
    );
    expect(translateCommanderMessage('erro: --limit deve ser um inteiro')).toBe('erro: --limit deve ser um inteiro');
  });
});

describe('tables: R$ and Brasília time; --json raw', () => {
  test('money and instants in pt-BR', () => {
    expect(brl(123456)).toBe('R$ 1.234,56');
    expect(brl(5)).toBe('R$ 0,05');
    expect(brl(-250)).toBe('-R$ 2,50');
    // 03:30 UTC is 00:30 in Brasília (UTC-3), the same calendar day; 02:59 UTC is still the day before.
    expect(brasilia('2026-01-15T03:30:00.000Z')).toBe('15/01/2026 00:30');
    expect(brasilia(new Date('2026-01-15T02:59:00Z'))).toBe('14/01/2026 23:59');
    expect(cellText('price_cents', 700)).toBe('R$ 7,00');
    expect(cellText('sold', 700)).toBe('700');
    expect(cellText('sku', '2026-01-15')).toBe('2026-01-15');
    expect(cellText('is_admin', true)).toBe('sim');
    expect(cellText('is_admin', false)).toBe('não');
  });

  test('draws list: Portuguese headers, price in R$, closed_at in Brasília; --json keeps cents and the ISO instant', async () => {
    const p = await makeProduct(t, { title: 'Guia Fuso', price_cents: 123456 });
    const d = await makeDraw(t, { infoproduct_id: p.id, title: 'Guia Fuso', total_numbers: 20, status: 'closed' });
    const closedAt = new Date('2026-01-15T02:30:00.000Z'); // 14/01/2026 23:30 in Brasília
    await t.services.db('draws').where({ id: d.id }).update({ closed_at: closedAt });
    t.services.readCache.invalidateAll();

    const text = await cli(['draws', 'list', '--product', String(p.id)]);
    expect(text).toMatchObject({ code: 0, err: '' });
    const lines = text.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id\s+título\s+situação\s+sku\s+números\s+vendidos\s+reservados\s+preço\s+fechado em\s+número vencedor$/);
    expect(lines).toHaveLength(3);
    expect(lines[2]).toMatch(
      new RegExp(`^${d.id}\\s+Guia Fuso\\s+closed\\s+${p.sku}\\s+20\\s+0\\s+0\\s+R\\$ 1\\.234,56\\s+14/01/2026 23:30$`),
    );

    const json = await cli(['draws', 'list', '--product', String(p.id), '--json']);
    expect(json.code).toBe(0);
    const rows = JSON.parse(json.out);
    expect(rows).toEqual([expect.objectContaining({ id: d.id, price_cents: 123456, closed_at: closedAt.toISOString() })]);
    expect(json.out).not.toContain('R$');

    const show = await cli(['draws', 'show', String(d.id)]);
    expect(show.out).toMatch(/\npreço +R\$ 1\.234,56\n/);
    expect(show.out).toMatch(/\nfechado em +14\/01\/2026 23:30\n/);
  });
});

describe('the built CLI (cli/bin.cjs → dist/cli/index.cjs)', () => {
  const ROOT = path.resolve(__dirname, '../..');
  let dir: string;
  let preload: string;
  beforeAll(() => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require('../../cli/build.cjs').buildCli();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cv-cli-'));
    // Records, at exit, which npm packages the process loaded.
    preload = path.join(dir, 'loaded.cjs');
    fs.writeFileSync(
      preload,
      `process.on('exit', () => require('fs').writeFileSync(process.env.CV_LOADED, JSON.stringify([...new Set(Object.keys(require.cache).filter((k) => k.includes('/node_modules/')).map((k) => k.split('/node_modules/').pop().split('/').slice(0, k.split('/node_modules/').pop().startsWith('@') ? 2 : 1).join('/')))])));\n`,
    );
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const run = (args: string[], name: string) =>
    new Promise<{ code: number | null; out: string; err: string; loaded: string[] }>((resolve) => {
      const loadedFile = path.join(dir, `${name}.json`);
      execFile(
        process.execPath,
        ['--require', preload, path.join(ROOT, 'cli/bin.cjs'), ...args],
        { cwd: ROOT, env: childProcessEnv(t, { CV_LOADED: loadedFile }) },
        (error, out, err) =>
          resolve({
            code: error ? ((error as { code?: number }).code ?? 1) : 0,
            out,
            err,
            loaded: JSON.parse(fs.readFileSync(loadedFile, 'utf8')),
          }),
      );
    });

  test('--help runs the built file and loads commander only: no database, Redis, BullMQ, zod or mailer', async () => {
    const r = await run(['--help'], 'help');
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toMatch(/^Uso: cotaverde \[opções\] \[comando\]\n/);
    expect(r.loaded).toEqual(['commander']);
  });

  test('draws list --json loads the database modules, not ioredis, BullMQ, the mailer or tsx; prints the draws', async () => {
    const d = await makeDraw(t, { title: 'Sorteio Construído' });
    const r = await run(['draws', 'list', '--json', '--limit', '200'], 'list');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).map((x: { id: number }) => x.id)).toContain(d.id);
    expect(r.loaded).toEqual(expect.arrayContaining(['commander', 'knex', 'pg', 'zod']));
    for (const heavy of ['ioredis', 'bullmq', 'nodemailer', 'argon2', 'qrcode', 'tsx', 'esbuild']) expect(r.loaded).not.toContain(heavy);
  });

  test('a built file older than a source is rebuilt by the bin before it runs', async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const build = require('../../cli/build.cjs') as { staleReason(): string | null; OUT: string };
    expect(build.staleReason()).toBeNull();
    const past = new Date(Date.now() - 24 * 3600_000);
    fs.utimesSync(build.OUT, past, past);
    expect(build.staleReason()).toMatch(/ mudou$/);
    const r = await run(['--help'], 'rebuilt');
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.loaded).toContain('esbuild'); // it rebuilt
    expect(fs.statSync(build.OUT).mtimeMs).toBeGreaterThan(past.getTime());
    expect(build.staleReason()).toBeNull();
  });

  test('an unknown option through the bin: Portuguese message, exit code 2', async () => {
    const r = await run(['users', 'list', '--frobnicate'], 'unknown');
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^erro: opção desconhecida '--frobnicate'\n/);
  });
});
