import fs from 'node:fs';
import { runCli } from '../../cli/index';

/**
 * Runs several CLI commands, one after the other, in one real process (as `cotaverde …` runs them:
 * runCli with the services it builds itself, its real stdout and stderr file descriptors). Before
 * each command it writes a marker line to fd 1 and fd 2 (synchronously, as the CLI's own writes to
 * pipes are on Linux), so the test can split what each command wrote, logs included.
 * argv: one JSON array of argv arrays.
 */
export const MARK = '\u0001cli-json-runner:';

async function main() {
  const commands = JSON.parse(process.argv[2]) as string[][];
  for (const [i, argv] of commands.entries()) {
    fs.writeSync(1, `\n${MARK}${i}\n`);
    fs.writeSync(2, `\n${MARK}${i}\n`);
    const code = await runCli(argv);
    fs.writeSync(2, `\n${MARK}exit:${code}\n`);
  }
}

if (require.main === module)
  void main().then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(3);
    },
  );
