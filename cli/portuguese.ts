import { Command, Help, type Argument, type Option } from 'commander';

/**
 * Commander speaks English ('error: unknown option', 'Usage:', 'Options:'…); the operators read
 * Portuguese (docs/RULES: Portuguese texts everywhere a person reads). `PtCommand` translates
 * commander's own texts where they are made: the help titles and usage, the built-in help option
 * and help command, and every error message (all of them pass through `Command.error`). Messages
 * the CLI writes itself are already Portuguese and pass through unchanged.
 */

/** Commander's error messages (commander 14, lib/command.js and lib/suggestSimilar.js), in Portuguese. */
const ERRORS: Array<[RegExp, (...m: string[]) => string]> = [
  [/^error: unknown option '([^']*)'/, (_, f) => `erro: opção desconhecida '${f}'`],
  [/^error: unknown command '([^']*)'/, (_, c) => `erro: comando desconhecido '${c}'`],
  [/^error: missing required argument '([^']*)'/, (_, a) => `erro: falta o argumento obrigatório '${a}'`],
  [/^error: option '([^']*)' argument missing/, (_, f) => `erro: falta o valor da opção '${f}'`],
  [/^error: required option '([^']*)' not specified/, (_, f) => `erro: a opção obrigatória '${f}' não foi informada`],
  [/^error: option '([^']*)' argument '([^']*)' is invalid\./, (_, f, v) => `erro: valor '${v}' inválido para a opção '${f}'.`],
  [
    /^error: option '([^']*)' value '([^']*)' from env '([^']*)' is invalid\./,
    (_, f, v, e) => `erro: valor '${v}' da variável ${e} inválido para a opção '${f}'.`,
  ],
  [
    /^error: command-argument value '([^']*)' is invalid for argument '([^']*)'\./,
    (_, v, a) => `erro: valor '${v}' inválido para o argumento '${a}'.`,
  ],
  [
    /^error: too many arguments( for '[^']*')?\. Expected (\d+) arguments? but got (\d+)\./,
    (_, forCmd, want, got) =>
      `erro: argumentos demais${forCmd ? forCmd.replace(' for ', ' para ') : ''}: esperava ${want}, recebeu ${got}.`,
  ],
  [/^error: (.*) cannot be used with (.*)$/m, (_, a, b) => `erro: ${a} não pode ser usada com ${b}`],
  [/\n\(Did you mean one of ([^?]*)\?\)/, (_, list) => `\n(Você quis dizer um destes: ${list}?)`],
  [/\n\(Did you mean ([^?]*)\?\)/, (_, one) => `\n(Você quis dizer ${one}?)`],
];

/** Translates one of commander's error messages; any other text comes back unchanged. */
export function translateCommanderMessage(message: string): string {
  let out = message;
  for (const [re, to] of ERRORS) out = out.replace(re, (...m: unknown[]) => to(...(m.slice(0, -2) as string[])));
  return out;
}

const TITLES: Record<string, string> = {
  'Usage:': 'Uso:',
  'Options:': 'Opções:',
  'Commands:': 'Comandos:',
  'Arguments:': 'Argumentos:',
  'Global Options:': 'Opções globais:',
};

/** Help with Portuguese titles and option notes ("(padrão: 50)"). */
export class PtHelp extends Help {
  styleTitle(str: string): string {
    return super.styleTitle(TITLES[str] ?? str);
  }

  subcommandTerm(cmd: Command): string {
    return super.subcommandTerm(cmd).replace('[options]', '[opções]').replace('[command]', '[comando]');
  }

  optionDescription(option: Option): string {
    return ptNotes(super.optionDescription(option));
  }

  argumentDescription(argument: Argument): string {
    return ptNotes(super.argumentDescription(argument));
  }
}

/** "(default: 50, choices: …)" → "(padrão: 50, opções: …)". */
function ptNotes(description: string): string {
  return description
    .replace(/(\(|, )default: /, '$1padrão: ')
    .replace(/(\(|, )choices: /, '$1opções: ')
    .replace(/(\(|, )preset: /, '$1sem valor: ')
    .replace(/(\(|, )env: /, '$1variável: ');
}

const HELP_OPTION = ['-h, --help', 'mostra a ajuda do comando'] as const;
const HELP_COMMAND = ['help [comando]', 'mostra a ajuda de um comando'] as const;

/** The root command: Portuguese help option and help command, inherited by every subcommand (commander's copyInheritedSettings). */
export function createPtProgram(): PtCommand {
  return new PtCommand().helpOption(...HELP_OPTION).helpCommand(...HELP_COMMAND);
}

/** A commander Command whose own texts are Portuguese; its subcommands are too (createCommand). */
export class PtCommand extends Command {
  createCommand(name?: string): Command {
    return new PtCommand(name);
  }

  createHelp(): Help {
    return Object.assign(new PtHelp(), this.configureHelp());
  }

  error(message: string, errorOptions?: { code?: string; exitCode?: number }): never {
    return super.error(translateCommanderMessage(message), errorOptions);
  }

  usage(): string;
  usage(str: string): this;
  usage(str?: string): string | this {
    if (str !== undefined) return super.usage(str);
    return super.usage().replace('[options]', '[opções]').replace('[command]', '[comando]');
  }
}
