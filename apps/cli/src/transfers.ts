// The modules' project transfers, in import order: components first, since content types may name layout components
// (only for readability: there are no cross-subgraph foreign keys).
import { loadJwtSecret, type Config, type SubgraphName } from '@cp/config';
import type { ProjectTransfer } from '@cp/db';
import { SUBGRAPHS } from '@cp/supergraph';

const ORDER: readonly SubgraphName[] = ['components', 'content', 'assets'];

export function projectTransfers(config: Config): ProjectTransfer[] {
  const deps = { config, secret: loadJwtSecret(config) };
  return ORDER.flatMap((name) => SUBGRAPHS.find((m) => m.name === name)?.transfer?.(deps) ?? []);
}

export const allKinds = (transfers: ProjectTransfer[]) => transfers.flatMap((t) => [...t.kinds]);
