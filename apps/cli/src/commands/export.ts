// `content-platform export`: a project's content, components, packages, assets (with bytes) and settings into a directory or .tar.gz.
import type { ProjectScope } from '@cp/graphql';
import { ArchiveWriter } from '../archive/write-archive';
import type { Progress } from '../progress';
import { cliConfig, requireProject, withDatabase } from '../runtime';
import { projectTransfers } from '../transfers';

export interface ExportOptions {
  organization: string;
  project: string;
}

export async function exportProject(target: string, options: ExportOptions, progress: Progress): Promise<string> {
  const config = cliConfig();
  const scope: ProjectScope = { organizationId: options.organization, projectId: options.project };
  const transfers = projectTransfers(config);
  return withDatabase(config, async (db) => {
    const em = db.orm.em.fork();
    await requireProject(em, scope);
    const writer = await ArchiveWriter.open(target);
    try {
      const counts: Record<string, number> = {};
      for (const transfer of transfers) {
        progress.step(`read ${transfer.name}`, transfer.kinds.length);
        const { data, files } = await transfer.export(em, scope);
        for (const kind of transfer.kinds) {
          await writer.json(`data/${kind}.json`, data[kind]);
          counts[kind] = data[kind].length;
          progress.tick();
        }
        progress.step(`copy ${transfer.name} files`, files.length);
        for (const file of files) {
          await writer.stream(`files/${file.path}`, await file.read());
          progress.tick();
        }
        progress.end();
      }
      const { path, bytes } = await writer.finish(scope, counts);
      const summary = Object.entries(counts)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ');
      progress.note(`exported ${scope.organizationId}/${scope.projectId} to ${path} (${bytes} bytes): ${summary}`);
      return path;
    } catch (err) {
      await writer.abort();
      throw err;
    }
  });
}
