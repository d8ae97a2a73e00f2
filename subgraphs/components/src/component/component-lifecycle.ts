// Component transitions allowed by the spec's state table (no publish/unpublish: packages publish components, D3/D7).
import { InvalidStatusTransitionError } from '@cp/errors';
import { EntityStatus } from '@cp/graphql';

export type ComponentAction = 'update' | 'discard' | 'rollback' | 'delete' | 'restore';

const ALLOWED: Record<ComponentAction, { from: EntityStatus[]; requested: EntityStatus }> = {
  update: { from: [EntityStatus.draft, EntityStatus.modified, EntityStatus.published], requested: EntityStatus.modified },
  discard: { from: [EntityStatus.modified], requested: EntityStatus.published },
  rollback: { from: [EntityStatus.published], requested: EntityStatus.modified },
  delete: { from: [EntityStatus.draft, EntityStatus.modified, EntityStatus.published], requested: EntityStatus.deleted },
  restore: { from: [EntityStatus.deleted], requested: EntityStatus.draft },
};

/** Throws 409 INVALID_STATUS_TRANSITION (D3) when `action` is not allowed from `current`. */
export function assertTransition(current: EntityStatus, action: ComponentAction): void {
  const rule = ALLOWED[action];
  if (!rule.from.includes(current)) throw new InvalidStatusTransitionError(current, rule.requested);
}
