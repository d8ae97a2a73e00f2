// Table-driven lifecycle guards (spec "States and transitions"): each subgraph declares its table, one function enforces it.
import { InvalidStatusTransitionError } from '@cp/errors';
import type { EntityStatus } from '@cp/db';

export type TransitionTable<A extends string> = Record<A, { from: readonly EntityStatus[]; requested: EntityStatus }>;

/** Returns a guard that throws 409 INVALID_STATUS_TRANSITION with `currentStatus`/`requestedStatus`. */
export function transitionGuard<A extends string>(table: TransitionTable<A>) {
  return (current: EntityStatus, action: A): void => {
    const rule = table[action];
    if (!rule.from.includes(current)) throw new InvalidStatusTransitionError(current, rule.requested);
  };
}
