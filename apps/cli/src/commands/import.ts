// `content-platform import`: verifies a whole archive, then writes every row, version and event in one transaction, then the asset bytes.
import { TransferConflictError, type ImportSummary, type PendingFile, type TransferData } from '@cp/db';
import type { ProjectScope } from '@cp/graphql';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { openArchive } from '../archive/read-archive';
import { InvalidArchiveError, RefusedError } from '../errors';
import type { Progress } from '../progress';
import { cliConfig, requireProject, withDatabase } from '../runtime';
import { allKinds, projectTransfers } from '../transfers';

export interface ImportOptions {
  organization: string;
  project: string;
}

/**
 * Nothing is written unless everything is: the archive is verified in full first (manifest, sha256 of every
 * file, JSON, the subgraphs' checks), rows and events go into one transaction, and asset bytes are stored
 * inside it just before the commit and removed again when anything fails.
 */
export async function importProject(
  source: string,
  options: ImportOptions,
  progress: Progress,
): Promise<ImportSummary> {
  const config = cliConfig();
  const scope: ProjectScope = { organizationId: options.organization, projectId: options.project };
  const transfers = projectTransfers(config);
  const archive = await openArchive(source, allKinds(transfers), progress);
  try {
    const data = archive.data as TransferData;
    const problems = transfers.flatMap((t) => t.validate(data, archive.files));
    if (problems.length) throw new InvalidArchiveError(problems);
    return await withDatabase(config, async (db) => {
      const em = db.orm.em.fork();
      await requireProject(em, scope);
      const summary: ImportSummary = {};
      const stored: PendingFile[] = [];
      try {
        await em.transactional(async (tx) => {
          const pending: PendingFile[] = [];
          progress.step('import rows', transfers.length);
          for (const transfer of transfers) {
            const result = await transfer.import(tx, scope, data, { actorId: null, files: archive.files });
            Object.assign(summary, result.summary);
            pending.push(...result.files);
            progress.tick();
          }
          progress.step('store files', pending.length);
          for (const file of pending) {
            const { checksum } = await file.put(file.key, createReadStream(join(archive.dir, 'files', file.path)));
            stored.push(file);
            if (checksum !== file.checksum)
              throw new InvalidArchiveError([`files/${file.path}: its sha256 differs from the checksum of its row`]);
            progress.tick();
          }
          progress.end();
        });
      } catch (err) {
        for (const file of stored) await file.remove(file.key).catch(() => undefined);
        if (err instanceof TransferConflictError)
          throw new RefusedError(`Import refused, nothing was written: ${err.message}`);
        if (err instanceof InvalidArchiveError) throw err;
        throw new RefusedError(`Import failed and was rolled back, nothing was written: ${describe(err)}`);
      }
      const line = Object.entries(summary)
        .map(([kind, s]) => `${kind} +${s.inserted} ~${s.updated} =${s.unchanged}`)
        .join(', ');
      progress.note(
        `imported into ${scope.organizationId}/${scope.projectId} (+ added, ~ changed, = unchanged): ${line}`,
      );
      return summary;
    });
  } finally {
    await archive.close();
  }
}

/** Database errors name the constraint (e.g. a name already used by another record of the project). */
function describe(err: unknown): string {
  const e = err as { message?: string; constraint?: string; detail?: string };
  if (e.constraint) return `constraint ${e.constraint} refused a row${e.detail ? ` (${e.detail})` : ''}`;
  return e.message ?? String(err);
}
