// Sync: an initial snapshot of what a key sees of a project's content, then the changes since a token, page by page.
import { BadRequestError } from '@cp/errors';
import { PREVIEW_STATUSES, type KeyVisibility, type ProjectScope } from '@cp/graphql';
import { raw, type EntityManager, type FilterQuery } from '@mikro-orm/postgresql';
import type { Content } from '../content/content.entity';
import { readContentRows, type ContentRowsOptions } from '../content/content-rows';
import { changedAgainAfter, eventsAfter, feedPosition, textArray, type FeedEvent } from './sync-feed';
import type { SyncArgs, SyncDeletion, SyncPage } from './sync.inputs';
import type { SyncBinding, SyncCursor, SyncTokens } from './sync-token';

/** What the caller asks of the entries' rows: their modules or not, and the locale (`*`: a copy keeps every locale). */
export type SyncRows = Pick<ContentRowsOptions, 'compiled' | 'locale'>;

/** Entries (`items` and `deleted` together) per page. */
export const SYNC_PAGE = 100;
/**
 * Event batches one delta page reads at most. A batch can pick no entry at all (every one changes again later), so a
 * page stops here and hands on a `nextPageToken` rather than read an unbounded stretch of the feed in one request.
 */
const MAX_BATCHES = 10;

export class SyncService {
  /** `pageSize`: tests make it small, so that few entries span several pages and batches. */
  constructor(
    private readonly tokens: SyncTokens,
    private readonly pageSize = SYNC_PAGE,
  ) {}

  /** One page of a sync. `rows`: whether the caller selected the entries' modules, and the locale (`*`) they are in. */
  async page(
    em: EntityManager,
    scope: ProjectScope,
    view: KeyVisibility,
    args: SyncArgs,
    rows: SyncRows,
  ): Promise<SyncPage> {
    const { binding, cursor } = this.start(scope, view, args);
    if (cursor === undefined || cursor.kind === 'snapshot') return this.snapshotPage(em, binding, cursor, rows);
    return this.deltaPage(em, binding, cursor.kind === 'delta' ? cursor.after : cursor.at, rows);
  }

  /** The binding and cursor the arguments name (no cursor: a new initial sync); 400 for any other combination. */
  private start(
    scope: ProjectScope,
    view: KeyVisibility,
    args: SyncArgs,
  ): { binding: SyncBinding; cursor?: SyncCursor } {
    const given = (['initial', 'pageToken', 'syncToken'] as const).filter((name) => args[name]);
    if (given.length !== 1) {
      throw new BadRequestError('Give exactly one of `initial=true`, `pageToken` and `syncToken`.', {
        parameters: ['initial', 'pageToken', 'syncToken'],
        given,
      });
    }
    const filter = { typeId: args.typeId ?? undefined, locale: args.locale ?? undefined };
    if (args.initial) return { binding: { ...scope, view, ...filter } };
    const parameter = given[0] as 'pageToken' | 'syncToken';
    const opened = this.tokens.open(args[parameter]!, parameter, { ...scope, view });
    // The token carries its sync's filter; repeating it is fine, changing it would mix two syncs.
    for (const name of ['typeId', 'locale'] as const) {
      if (filter[name] !== undefined && filter[name] !== opened.binding[name]) {
        throw new BadRequestError(`${name} differs from the one this sync began with; start a new initial sync.`, {
          parameter: name,
          value: filter[name],
        });
      }
    }
    return opened;
  }

  /**
   * A page of the entries the view sees, by id. The sync token of the last page is the feed position read before the
   * first page: whatever changes while the pages are read has a later position, so the first delta carries it again.
   */
  private async snapshotPage(
    em: EntityManager,
    binding: SyncBinding,
    cursor: Extract<SyncCursor, { kind: 'snapshot' }> | undefined,
    rows: SyncRows,
  ): Promise<SyncPage> {
    const at = cursor?.at ?? (await feedPosition(em));
    const after = cursor?.after ? [{ id: { $gt: cursor.after } }] : [];
    const found = await this.visibleRows(em, binding, after, { id: 'asc' }, this.pageSize + 1, rows);
    const items = found.slice(0, this.pageSize);
    if (found.length > this.pageSize)
      return {
        items,
        deleted: [],
        nextPageToken: this.tokens.sign(binding, { kind: 'snapshot', at, after: items.at(-1)!.id }),
      };
    return { items, deleted: [], nextSyncToken: this.tokens.sign(binding, { kind: 'caught-up', at }) };
  }

  /**
   * A page of the changes after feed position `after`: the entries of the next relevant events, each answered at its
   * last event (an entry that changes again later waits for that later event), in its current state, or in `deleted`
   * when the view no longer sees it. Reads the page's events, one probe per entry and the entries' rows: never the
   * project's other entries.
   */
  private async deltaPage(em: EntityManager, binding: SyncBinding, after: string, rows: SyncRows): Promise<SyncPage> {
    const picked = new Map<string, FeedEvent>();
    let position = after;
    let caughtUp = false;
    for (let batch = 0; batch < MAX_BATCHES && picked.size < this.pageSize; batch++) {
      const want = this.pageSize - picked.size;
      const events = await eventsAfter(em, binding, position, want);
      const latest = new Map<string, FeedEvent>();
      for (const event of events) {
        latest.delete(event.id);
        latest.set(event.id, event);
      }
      if (events.length > 0) position = events.at(-1)!.position;
      // A short batch reached the end of the feed: nothing later to defer to.
      caughtUp = events.length < want;
      const again = caughtUp ? new Set<string>() : await changedAgainAfter(em, binding, [...latest.keys()], position);
      for (const [id, event] of latest) {
        if (again.has(id)) continue;
        picked.delete(id);
        picked.set(id, event);
      }
      if (caughtUp) break;
    }
    const ids = [...picked.keys()];
    const found = ids.length === 0 ? [] : await this.visibleRows(em, binding, [idIn(ids)], {}, ids.length, rows);
    const byId = new Map(found.map((row) => [row.id, row]));
    const items: Content[] = [];
    const deleted: SyncDeletion[] = [];
    for (const [id, event] of picked) {
      const row = byId.get(id);
      if (row) items.push(row);
      else deleted.push({ id, deletedAt: event.occurredAt });
    }
    if (caughtUp)
      return { items, deleted, nextSyncToken: this.tokens.sign(binding, { kind: 'caught-up', at: position }) };
    return { items, deleted, nextPageToken: this.tokens.sign(binding, { kind: 'delta', after: position }) };
  }

  /** Entries as the client list answers them: the published projection for published keys, working rows for preview keys. */
  private visibleRows(
    em: EntityManager,
    binding: SyncBinding,
    more: FilterQuery<Content>[],
    orderBy: Record<string, 'asc' | 'desc'>,
    limit: number,
    rows: SyncRows,
  ): Promise<Content[]> {
    const where: FilterQuery<Content>[] = [{ organizationId: binding.organizationId, projectId: binding.projectId }];
    if (binding.view === 'preview') where.push({ status: { $in: [...PREVIEW_STATUSES] } });
    if (binding.typeId !== undefined) where.push({ typeId: binding.typeId });
    if (binding.locale !== undefined)
      where.push({
        [raw((alias) => `(${alias}."metadata"->>'locale' = ?)`, [binding.locale])]: true,
      } as FilterQuery<Content>);
    const published = binding.view === 'published';
    return readContentRows(em, { $and: [...where, ...more] }, orderBy, limit, { published, ...rows });
  }
}

/** `id` among `ids`, as one array parameter: a page's id count would otherwise make a new query shape each time. */
const idIn = (ids: readonly string[]) =>
  ({ [raw((alias) => `(${alias}."id" = any(?::varchar[]))`, [textArray(ids)])]: true }) as FilterQuery<Content>;
