// Bulk actions on content entries: each entry gets its single request's rules and outcome, reported in the order
// given; one entry's refusal doesn't stop the others. Publishes and unpublishes run as one batch (a release's path),
// everything else (and a batch that can't keep a refusal apart) one savepoint per entry.
import { distinctNames, type ProjectScope } from '@cp/graphql';
import { AppError, knownErrorOf, statusOf, ValidationFailedError, type FieldError } from '@cp/errors';
import { carryEvents } from '@cp/db';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ContentService } from '../content/content.service';
import type { BulkContentInput } from './bulk.inputs';

export const BULK_ACTIONS = ['publish', 'unpublish', 'delete', 'addTags', 'removeTags', 'move'] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];
export const MAX_BULK_IDS = 100;

export interface ValidBulk {
  action: BulkAction;
  ids: string[];
  tags: string[];
  folderId: string | null;
}

/** One entry's outcome: the HTTP status its single request would have had, and that request's envelope `error`. */
export interface BulkResult {
  id: string;
  status: number;
  error?: { code: string; message: string; details?: Record<string, unknown> };
}

/** The role flag each action needs, as its single request does. */
export const BULK_PERMISSION = {
  publish: 'publish',
  unpublish: 'publish',
  delete: 'delete',
  addTags: 'update',
  removeTags: 'update',
  move: 'update',
} as const satisfies Record<BulkAction, string>;

export class BulkContentService {
  constructor(private readonly content: ContentService) {}

  /** 422 VALIDATION_FAILED with one entry per bad member. */
  validate(input: BulkContentInput): ValidBulk {
    const errors: FieldError[] = [];
    const action = input.action as BulkAction;
    if (!BULK_ACTIONS.includes(action))
      errors.push({ path: '/action', message: `must be one of ${BULK_ACTIONS.join(', ')}` });
    const ids = input.ids ?? [];
    if (ids.length < 1 || ids.length > MAX_BULK_IDS)
      errors.push({ path: '/ids', message: `must hold 1 to ${MAX_BULK_IDS} ids` });
    const tags = distinctNames(input.tags ?? undefined);
    if ((action === 'addTags' || action === 'removeTags') && tags.length === 0)
      errors.push({ path: '/tags', message: 'must name at least one tag' });
    if (action === 'move' && input.folderId === undefined)
      errors.push({ path: '/folderId', message: 'is required (null: out of any folder)' });
    if (errors.length > 0) throw new ValidationFailedError(errors);
    return { action, ids, tags, folderId: input.folderId ?? null };
  }

  async run(em: EntityManager, scope: ProjectScope, bulk: ValidBulk, actorId: string): Promise<BulkResult[]> {
    if (bulk.action === 'publish' || bulk.action === 'unpublish') {
      const batched = await this.batch(em, scope, bulk.action, bulk.ids, actorId);
      if (batched) return batched;
    }
    return this.oneByOne(em, scope, bulk, actorId);
  }

  /**
   * Publishes or unpublishes every id in one transaction, the entries locked by one statement and written in a few
   * batched ones at commit, as a release does (`transitionMany`), each with its own version and event. A refusal by
   * the lock (404) or the state table (409) comes before its entry is touched, so the others are committed without it;
   * any other refusal may have left its entry half changed: then nothing is committed and undefined is answered (the
   * savepoint path runs instead).
   */
  private async batch(
    em: EntityManager,
    scope: ProjectScope,
    action: 'publish' | 'unpublish',
    ids: string[],
    actorId: string,
  ): Promise<BulkResult[] | undefined> {
    const items = ids.map((id) => ({ id, action }));
    try {
      return await em.transactional(async (tx) => {
        const outcomes = await this.content.transitionMany(tx, scope, items, actorId);
        if (outcomes.some((o) => o.error && !UNTOUCHED.has(o.error.code))) throw UNSAFE;
        await this.content.refreshPublished(
          tx,
          outcomes.filter((o) => !o.error).map((o) => o.id),
        );
        return outcomes.map((o) => (o.error ? { id: o.id, ...refusal(o.error) } : { id: o.id, status: 200 }));
      });
    } catch (err) {
      if (err === UNSAFE) return undefined;
      throw err;
    }
  }

  /**
   * One transaction, each id in a savepoint of its own: a refused id rolls back alone and the others go on, and the
   * whole bulk pays for one commit (and one event dispatch) instead of a hundred. Ids run in the order given, so a
   * repeated id sees its earlier result.
   */
  private oneByOne(em: EntityManager, scope: ProjectScope, bulk: ValidBulk, actorId: string): Promise<BulkResult[]> {
    return em.transactional(async (tx) => {
      const results: BulkResult[] = [];
      for (const id of bulk.ids) {
        try {
          // A clear fork: the unit of work of one id holds that id's entities only, not every earlier id's (each
          // flush would compare them all again).
          await tx.transactional((savepoint) => this.apply(savepoint, scope, bulk, id, actorId), { clear: true });
          results.push({ id, status: 200 });
          // The savepoint's events are this transaction's: its commit wakes the dispatcher, and the answer waits
          // for their announcement, as a single request's does.
          carryEvents(tx);
        } catch (err) {
          results.push({ id, ...refusal(err) });
        }
      }
      return results;
    });
  }

  private apply(em: EntityManager, scope: ProjectScope, bulk: ValidBulk, id: string, actorId: string) {
    switch (bulk.action) {
      case 'publish':
      case 'unpublish':
      case 'delete':
        return this.content[bulk.action](em, scope, id, actorId);
      case 'addTags':
        return this.content.edit(em, scope, id, actorId, (entry) => ({ tags: [...entry.tags, ...bulk.tags] }));
      case 'removeTags':
        return this.content.edit(em, scope, id, actorId, (entry) => ({
          tags: entry.tags.filter((tag) => !bulk.tags.includes(tag)),
        }));
      case 'move':
        return this.content.edit(em, scope, id, actorId, () => ({ folderId: bulk.folderId }));
    }
  }
}

/** Refusals that come before an entry is changed: the lock's (not found) and the state table's. */
const UNTOUCHED = new Set(['NOT_FOUND', 'INVALID_STATUS_TRANSITION']);
/** Rolls a batch back when a refusal may have changed its entry. */
const UNSAFE = new Error('A refusal in the batch may have changed its entry.');

/** The status and envelope `error` the single request would have answered; anything unexpected is INTERNAL. */
function refusal(err: unknown): Omit<BulkResult, 'id'> {
  const known = knownErrorOf(err) ?? err;
  if (!(known instanceof AppError)) {
    return { status: 500, error: { code: 'INTERNAL', message: 'An internal error occurred.' } };
  }
  return {
    status: statusOf(known.code),
    error: { code: known.code, message: known.message, ...(known.details ? { details: known.details } : {}) },
  };
}
