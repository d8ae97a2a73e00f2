// The modules' project transfers, in import order: components first, since content types may name layout components
// (only for readability: there are no cross-subgraph foreign keys).
import { loadJwtSecret, type Config, type SubgraphName } from '@cp/config';
import type { ProjectTransfer } from '@cp/db';
import { SUBGRAPHS } from '@cp/supergraph';

const ORDER: readonly SubgraphName[] = ['components', 'content', 'assets', 'access'];

export function projectTransfers(config: Config): ProjectTransfer[] {
  const deps = { config, secret: loadJwtSecret(config) };
  const rank = (name: SubgraphName) => ORDER.indexOf(name);
  const modules = [...SUBGRAPHS].sort((a, b) => rank(a.name) - rank(b.name));
  return modules.flatMap((m) => m.transfer?.(deps) ?? []);
}

export const allKinds = (transfers: ProjectTransfer[]) => transfers.flatMap((t) => [...t.kinds]);
