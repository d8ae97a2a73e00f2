// Component transitions allowed by the spec's state table (no publish/unpublish: packages publish components).
import { EntityStatus, transitionGuard } from '@cp/graphql';

const { draft, modified, published, deleted } = EntityStatus;

export const assertTransition = transitionGuard({
  update: { from: [draft, modified, published], requested: modified },
  discard: { from: [modified], requested: published },
  rollback: { from: [published], requested: modified },
  delete: { from: [draft, modified, published], requested: deleted },
  restore: { from: [deleted], requested: draft },
});
