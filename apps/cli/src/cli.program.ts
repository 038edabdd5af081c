import { Command, CommanderError, Option } from 'commander';
import { CliError, ExitCode } from './cli.errors.js';
import { processContext, type CliContext } from './cli.context.js';
import { DEFAULT_CLIENT_ID, DEFAULT_SCOPE, loginCommand } from './commands/login.command.js';
import { logoutCommand } from './commands/logout.command.js';
import { orgsCommand } from './commands/orgs.command.js';
import { tokenCommand } from './commands/token.command.js';
import { whoamiCommand } from './commands/whoami.command.js';

const SERVER_HELP = 'the server (default: the most recent login)';

/**
 * The `tessera` command tree on commander. `context` builds the run's context from the global
 * options (`--verbose`).
 *
 * @example
 * await buildProgram((options) => processContext(process.env, options)).parseAsync(process.argv);
 */
export function buildProgram(context: (options: { verbose: boolean }) => CliContext): Command {
  const program = new Command('tessera')
    .description('Log in to a Tessera server with the device flow and use it from the terminal.')
    .option('--verbose', 'print the X-Request-ID of every request on stderr', false)
    .exitOverride()
    .showHelpAfterError(false);
  const contextOf = () => context({ verbose: program.opts<{ verbose: boolean }>().verbose });

  program
    .command('login')
    .description('log in with a code approved in the browser')
    .requiredOption('--server <url>', 'the server URL, e.g. https://id.example.com')
    .option('--scope <capabilities>', 'space-separated capabilities to ask for', DEFAULT_SCOPE)
    .option('--client-id <id>', 'the OAuth client id', DEFAULT_CLIENT_ID)
    .action((options: { server: string; scope: string; clientId: string }) => loginCommand(contextOf(), options));
  program
    .command('whoami')
    .description('the user, organization and scopes of the stored login')
    .option('--server <url>', SERVER_HELP)
    .addOption(new Option('--json', 'print JSON'))
    .action((options: { server?: string; json?: boolean }) => whoamiCommand(contextOf(), options));
  program
    .command('orgs')
    .description('the organizations the stored login can see')
    .option('--server <url>', SERVER_HELP)
    .addOption(new Option('--json', 'print JSON'))
    .action((options: { server?: string; json?: boolean }) => orgsCommand(contextOf(), options));
  program
    .command('token')
    .description('print a valid access token (for Authorization: Bearer $(tessera token))')
    .option('--server <url>', SERVER_HELP)
    .action((options: { server?: string }) => tokenCommand(contextOf(), options));
  program
    .command('logout')
    .description('revoke the stored login on the server and delete it')
    .option('--server <url>', SERVER_HELP)
    .action((options: { server?: string }) => logoutCommand(contextOf(), options));
  return program;
}

/**
 * Runs `tessera` with `argv` and answers the exit code: failures are one line on stderr (plus the
 * request id with `--verbose`), usage errors exit 2 (see {@link ExitCode}).
 *
 * @example
 * process.exitCode = await runCli(process.argv, process.env);
 */
export async function runCli(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  let verbose = false;
  const program = buildProgram((options) => {
    verbose = options.verbose;
    return processContext(env, options);
  });
  try {
    await program.parseAsync([...argv]);
    return ExitCode.ok;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    if (error instanceof CliError) {
      process.stderr.write(`${error.message}\n`);
      if (verbose && error.requestId !== undefined) process.stderr.write(`Request ID: ${error.requestId}\n`);
      return error.exitCode;
    }
    process.stderr.write(`Unexpected error: ${error instanceof Error ? error.message : String(error)}\n`);
    return ExitCode.failure;
  }
}
