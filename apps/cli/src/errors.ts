// Failures the command line reports as one clear message and a distinct exit code (no stack trace).
export const EXIT = { ok: 0, failure: 1, usage: 2, invalidArchive: 3, refused: 4, inUse: 5 } as const;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failure,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** The archive is corrupt or not ours; nothing was written. */
export class InvalidArchiveError extends CliError {
  constructor(problems: string[]) {
    const shown = problems.slice(0, 20);
    const more = problems.length > shown.length ? `\n  … and ${problems.length - shown.length} more` : '';
    super(`Invalid archive, nothing was imported:\n  ${shown.join('\n  ')}${more}`, EXIT.invalidArchive);
  }
}

/** The target refuses the operation (unknown project, clashing ids, a rule of the service). */
export class RefusedError extends CliError {
  constructor(message: string) {
    super(message, EXIT.refused);
  }
}
