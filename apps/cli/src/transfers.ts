// The subgraphs' project transfers, in import order (content types may name layout components, so the order is only for readability: there are no cross-subgraph foreign keys).
import { loadJwtSecret, type Config } from '@cp/config';
import type { ProjectTransfer } from '@cp/db';
import { createAssetsTransfer } from '@cp/subgraph-assets';
import { createComponentsTransfer } from '@cp/subgraph-components';
import { createContentTransfer } from '@cp/subgraph-content';

export function projectTransfers(config: Config): ProjectTransfer[] {
  return [createComponentsTransfer(config), createContentTransfer(loadJwtSecret(config)), createAssetsTransfer(config)];
}

export const allKinds = (transfers: ProjectTransfer[]) => transfers.flatMap((t) => [...t.kinds]);
