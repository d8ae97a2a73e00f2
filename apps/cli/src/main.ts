// `content-platform`: the operator's command line (export/import, organizations, API keys, users, migrations, schema composition).
import 'reflect-metadata';
import { AppError } from '@cp/errors';
import { Command, CommanderError, Option } from 'commander';
import { exportProject } from './commands/export';
import { importProject } from './commands/import';
import { createKey, listKeys, revokeKey } from './commands/keys';
import { compose } from './commands/compose';
import { migrate } from './commands/migrate';
import { createOrganizationCommand } from './commands/organizations';
import { createUser, resetPassword } from './commands/users';
import { CliError, EXIT } from './errors';
import { createProgress } from './progress';

const program = new Command('content-platform')
  .description(
    'Operate a content platform installation. Reads DATABASE_URL (unset: the embedded database under DATA_DIR), DATA_DIR, STORAGE_URL (with S3_* and AWS_*) and JWT_SECRET like the service.',
  )
  .showHelpAfterError()
  .exitOverride();

const organization = () => new Option('-o, --organization <id>', 'organization id').default('default');
const project = () => new Option('-p, --project <id>', 'project id').default('default');
const actAs = () => new Option('--as <email>', "user to act as (default: the organization's oldest Owner)");
const json = () => new Option('--json', 'print the result as JSON');
const quiet = () => new Option('-q, --quiet', 'no progress output');

/** Results go to stdout (JSON with --json); progress and messages to stderr. */
function print(result: unknown, asJson: boolean | undefined, text: () => string) {
  process.stdout.write(asJson ? `${JSON.stringify(result, null, 2)}\n` : `${text()}\n`);
}

program
  .command('export')
  .description(
    'export a project (content types, entries, components, packages, assets with bytes, tags, folders, saved searches, webhooks without secrets) to a directory or a .tar.gz',
  )
  .argument('<target>', 'a new directory, or a file ending in .tar.gz / .tgz')
  .addOption(organization())
  .addOption(project())
  .addOption(quiet())
  .action(async (target: string, o) => {
    await exportProject(target, o, createProgress(process.stderr, o.quiet));
  });

program
  .command('import')
  .description(
    'import an export into a project of this installation; ids are kept, and importing again changes nothing',
  )
  .argument('<source>', 'an export directory or .tar.gz')
  .addOption(organization())
  .addOption(project())
  .addOption(quiet())
  .addOption(json())
  .action(async (source: string, o) => {
    const summary = await importProject(source, o, createProgress(process.stderr, o.quiet));
    if (o.json) print(summary, true, () => '');
  });

const keys = program.command('keys').description('API keys of a project');
keys
  .command('create')
  .description('create an API key and print it (shown this once)')
  .requiredOption('-n, --name <name>', 'key name')
  .option('-d, --description <text>', 'description')
  .addOption(organization())
  .addOption(project())
  .addOption(actAs())
  .addOption(json())
  .action(async (o) => {
    const key = await createKey(o);
    print(key, o.json, () => key.key!);
  });
keys
  .command('list')
  .description('list the API keys of a project (never their values)')
  .addOption(organization())
  .addOption(project())
  .addOption(json())
  .action(async (o) => {
    const rows = await listKeys(o);
    print(rows, o.json, () => rows.map((k) => `${k.id}  ${k.status.padEnd(8)} ${k.name}`).join('\n') || '(no keys)');
  });
keys
  .command('revoke')
  .description('revoke an API key: its next request is refused')
  .argument('<id>', 'key id')
  .addOption(organization())
  .addOption(project())
  .addOption(actAs())
  .addOption(json())
  .action(async (id: string, o) => {
    const key = await revokeKey(id, o);
    print(key, o.json, () => `revoked ${key.id} (${key.name})`);
  });

const organizations = program
  .command('organizations')
  .alias('org')
  .description('organizations (tenants) of the installation');
organizations
  .command('create')
  .description(
    'create an organization with an Owner role and its first user, who then creates projects, users and keys through the API (without --owner-password one is generated and printed once)',
  )
  .argument('<name>', 'display name')
  .requiredOption('-e, --owner-email <email>', "the owner's email address (sign-in)")
  .option('--owner-name <name>', "the owner's display name", 'Owner')
  .option('--owner-password <password>', "the owner's password (the password policy applies; default: generated)")
  .option('--id <id>', 'organization id: letters, digits, - and _ (default: generated)')
  .addOption(json())
  .action(async (name: string, o) => {
    const created = await createOrganizationCommand(name, o);
    print(
      created,
      o.json,
      () =>
        `created organization ${created.name} (${created.id}) with owner ${created.owner.email}` +
        (created.password ? `\npassword: ${created.password}` : ''),
    );
  });

const users = program.command('users').description('users of an organization');
users
  .command('create')
  .description('create a user (the password policy applies; without --password one is generated and printed once)')
  .requiredOption('-e, --email <email>', 'email address')
  .requiredOption('-n, --name <name>', 'display name')
  .requiredOption('-r, --role <role>', 'role name or id, e.g. Owner')
  .option('--password <password>', 'password (default: generated)')
  .addOption(organization())
  .addOption(actAs())
  .addOption(json())
  .action(async (o) => {
    const user = await createUser(o);
    print(
      user,
      o.json,
      () =>
        `created ${user.email} (${user.id}) with role ${user.role}${user.password ? `\npassword: ${user.password}` : ''}`,
    );
  });
users
  .command('reset-password')
  .description(
    "set a user's password and refuse every token issued before (without --password one is generated and printed once)",
  )
  .requiredOption('-e, --email <email>', 'email address')
  .option('--password <password>', 'new password (default: generated)')
  .addOption(organization())
  .addOption(actAs())
  .addOption(json())
  .action(async (o) => {
    const user = await resetPassword(o);
    print(
      user,
      o.json,
      () => `password of ${user.email} changed${user.password ? `\npassword: ${user.password}` : ''}`,
    );
  });

program
  .command('migrate')
  .description(
    'run pending database migrations (and create the default organization on an empty database, like the first start)',
  )
  .addOption(json())
  .action(async (o) => {
    const result = await migrate(createProgress());
    if (o.json) print(result, true, () => '');
  });

program
  .command('compose')
  .description('rewrite schema/<subgraph>.graphql and schema/supergraph.graphql from the code')
  .action(async () => {
    await compose(createProgress());
  });

async function main(argv: string[]): Promise<number> {
  try {
    await program.parseAsync(argv);
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version are not failures; commander has printed its message already.
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (err instanceof CliError) {
      process.stderr.write(`error: ${err.message}\n`);
      return err.exitCode;
    }
    if (err instanceof AppError) {
      const details = err.details ? ` ${JSON.stringify(err.details)}` : '';
      process.stderr.write(`error: ${err.code}: ${err.message}${details}\n`);
      return EXIT.refused;
    }
    process.stderr.write(`error: ${(err as Error)?.stack ?? String(err)}\n`);
    return EXIT.failure;
  }
}

main(process.argv).then((code) => {
  // Worker threads (compiler, embeddings) and pools must not keep the process alive after the command.
  process.exit(code);
});
