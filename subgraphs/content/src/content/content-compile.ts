// The entry's `compiled` module: its data with the layout and components of the package its type version pins.
import { buildContentModule } from '@cp/bundle';
import type { ProjectScope } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { packageModules } from '../shared/component-catalog';
import type { Content } from './content.entity';

type Compilable = Pick<Content, 'id' | 'name' | 'typeId' | 'typeVersion' | 'packageVersion' | 'content'> & {
  version?: number | null;
};

export async function compileContent(
  em: EntityManager,
  scope: ProjectScope,
  entry: Compilable,
  layoutComponentId?: string | null,
): Promise<string> {
  const modules = entry.packageVersion === '0.0.0' ? [] : await packageModules(em, scope, entry.packageVersion);
  const layout = modules.find((m) => m.id === layoutComponentId) ?? null;
  const { id, name, typeId, typeVersion, packageVersion } = entry;
  return buildContentModule({
    content: entry.content,
    meta: { id, name, typeId, typeVersion, packageVersion, version: entry.version ?? null },
    layout,
    components: modules.filter((m) => m !== layout),
  });
}
