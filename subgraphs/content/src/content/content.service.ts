// Content rules: create against the latest published type version, validate, lifecycle, migrate, find.
import { assertSelectablePaths, type DocumentSelection } from './content-select';
import {
  assertProjectFolder,
  lifecycleBatch,
  lifecycleTransition,
  nextVersion,
  recordEvent,
  RowRecords,
  sql,
  type Lifecycle,
  type LifecycleAction,
} from '@cp/db';
import { AppError, BadRequestError, NotFoundError } from '@cp/errors';
import {
  CursorPagination,
  type CursorArgs,
  decodeCursor,
  encodeCursor,
  EntityStatus,
  keysetPage,
  offsetPage,
  parseLimit,
  parseOffsetArgs,
  type LocaleRequest,
  type ProjectScope,
  type Visibility,
  distinctNames,
  requireName,
} from '@cp/graphql';
import { raw, RawQueryFragment, type EntityManager, type FilterQuery } from '@mikro-orm/postgresql';
import { ContentTypeVersion } from '../content-type/content-type-version.entity';
import { ContentType } from '../content-type/content-type.entity';
import { typeVersion as readTypeVersion, type FrozenTypeVersion } from '../content-type/type-versions';
import { afterEdit, assertTransition, publishedEvent } from '../lifecycle/lifecycle';
import { deleteChange, restoreChange, unpublishChange } from '../lifecycle/lifecycle';
import { compileContent } from './content-compile';
import { inDefault, localizedDocument, mergeLocalized, projectLocale, reshapeLocalized } from './content-locales';
import {
  assertNotReferenced,
  checkedLinks,
  collectLinks,
  linksOf,
  liveAssetIds,
  writeWorkingLinks,
} from './content-links';
import { documentSortKey } from './content-fields';
import { insertVersions, type NewVersion } from './version-rows';
import { Folder } from '../folder/folder.entity';
import { Content, ContentVersion, type ContentSnapshot } from './content.entity';
import type { ContentListArgs, CreateContentInput, SearchContentInput, UpdateContentInput } from './content.inputs';
import {
  documentField,
  fullText,
  listWhere,
  matchingIds,
  parseSort,
  searchWhere,
  searchWords,
  selectedTypeId,
  sortOrder,
} from './content-query';
import { ADMIN_VIEW, readContentRows, visibleContentRows, type ContentView } from './content-rows';
import { PublishedContent } from './published-content.entity';
import type { SemanticSearch } from '../semantic/semantic-search';
import { allowedComponents, validateDocument } from './content-validation';
import { ensureTags } from '../tag/tag.resolver';

export class ContentService {
  /** Without semantic search (embeddings off), `query` falls back to full-text matching. */
  constructor(private readonly semantic?: SemanticSearch) {}

  /** Entries change as plain rows: a transition reads its entry once and writes the columns it changed once. */
  private readonly rows = new RowRecords(Content);
  /** Every write after creation: lock, state table, change, event (published-state events flagged). */
  private readonly lifecycle: Lifecycle<Content, LifecycleAction> = {
    resourceType: 'content',
    lock: async (tx, scope, id) => {
      const entry = await this.rows.lock(tx, scope, id);
      if (!entry) throw new NotFoundError('Content', id);
      return entry;
    },
    guard: assertTransition,
    published: publishedEvent,
    save: (tx, entry) => this.rows.save(tx, entry),
  };
  private readonly transition = lifecycleTransition(this.lifecycle);
  /** A release's entries, locked in one statement in id order. */
  private readonly batch = lifecycleBatch(this.lifecycle, (tx, scope, ids) => this.rows.lockMany(tx, scope, ids));

  /**
   * One entry as the admin API reads it: a plain row, like an admin list page's (`readContentRows`), not an entity.
   * Nothing is written back, so the identity map and change-tracking snapshots `get` builds were pure cost. Always
   * the database's current row (the writer sees a write at once): admin reads never pass through the read cache.
   */
  async read(em: EntityManager, scope: ProjectScope, id: string, locale?: LocaleRequest): Promise<Content> {
    const [entry] = await readContentRows(
      em,
      { id, organizationId: scope.organizationId, projectId: scope.projectId },
      {},
      1,
      { locale },
    );
    if (!entry) throw new NotFoundError('Content', id);
    return entry;
  }

  async get(em: EntityManager, scope: ProjectScope, id: string): Promise<Content> {
    const where = { id, organizationId: scope.organizationId, projectId: scope.projectId };
    const entry = await em.findOne(Content, where);
    if (!entry) throw new NotFoundError('Content', id);
    return entry;
  }

  /** `locale`: the locale `input.content`'s localized properties are written in (`*`: all of them, as maps). */
  async create(
    em: EntityManager,
    scope: ProjectScope,
    input: CreateContentInput,
    actorId: string,
    locale: LocaleRequest,
  ): Promise<Content> {
    const name = requireName(input.name);
    const typeVersion = await this.latestTypeVersion(em, scope, input.typeId);
    const content = mergeLocalized({}, input.content, typeVersion.localized, locale);
    await this.validate(em, scope, content, typeVersion, locale);
    return em.transactional(async (tx) => {
      await assertProjectFolder(tx, scope, input.folderId);
      const entry = tx.create(Content, {
        ...scope,
        typeId: input.typeId,
        typeVersion: typeVersion.version,
        packageVersion: typeVersion.packageVersion,
        name,
        description: input.description ?? null,
        isTemplate: input.isTemplate ?? false,
        content,
        compiled: '',
        tags: distinctNames(input.tags),
        folderId: input.folderId ?? null,
        metadata: clientMetadata(input.metadata, { author: actorId }),
        createdById: actorId,
      });
      await writeWorkingLinks(
        tx,
        scope,
        entry.id,
        await checkedLinks(tx, scope, typeVersion.content.schema, entry.content),
      );
      entry.compiled = await this.compile(tx, scope, entry, typeVersion, locale);
      await ensureTags(tx, scope, entry.tags);
      recordEvent(tx, { resourceType: 'content', action: 'created', resourceId: entry.id, ...scope, actorId });
      return entry;
    });
  }

  async update(
    em: EntityManager,
    scope: ProjectScope,
    id: string,
    input: UpdateContentInput,
    actorId: string,
    locale: LocaleRequest,
  ): Promise<Content> {
    return this.edit(em, scope, id, actorId, () => input, locale);
  }

  /**
   * An update whose members are worked out from the locked entry (bulk actions add tags to its own, …). A change of
   * `content` needs the `locale` it is written in.
   */
  edit(
    em: EntityManager,
    scope: ProjectScope,
    id: string,
    actorId: string,
    inputOf: (entry: Content) => UpdateContentInput,
    locale?: LocaleRequest,
  ): Promise<Content> {
    return this.transition(em, scope, id, 'update', actorId, async (tx, entry) => {
      const input = inputOf(entry);
      const typeVersion = await readTypeVersion(tx, entry.typeId, entry.typeVersion);
      if (input.content !== undefined && !locale)
        throw new Error('A content change needs the locale it is written in.');
      const content =
        input.content === undefined
          ? undefined
          : mergeLocalized(entry.content, input.content, typeVersion.localized, locale!);
      if (content !== undefined) await this.validate(tx, scope, content, typeVersion, locale);
      if (input.name !== undefined) entry.name = requireName(input.name);
      if (input.description !== undefined) entry.description = input.description;
      if (input.isTemplate !== undefined) entry.isTemplate = input.isTemplate;
      if (content !== undefined) {
        const { schema } = typeVersion.content;
        // The links of the document the row lock just read, which every write of a document keeps in `content_link`.
        const previous = collectLinks(schema, entry.content);
        entry.content = content;
        await writeWorkingLinks(tx, scope, id, await checkedLinks(tx, scope, schema, entry.content), previous);
      }
      if (input.tags !== undefined) {
        entry.tags = distinctNames(input.tags);
        await ensureTags(tx, scope, entry.tags);
      }
      if (input.folderId !== undefined) {
        await assertProjectFolder(tx, scope, input.folderId);
        entry.folderId = input.folderId;
      }
      if (input.metadata !== undefined) entry.metadata = clientMetadata(input.metadata, entry.metadata);
      afterEdit(entry);
      entry.compiled = await this.compile(tx, scope, entry, typeVersion, locale);
    });
  }

  /** The next consecutive version under a row lock (concurrent publishes queue; the unique key backs it up). */
  publish(em: EntityManager, scope: ProjectScope, id: string, actorId: string) {
    return this.transition(em, scope, id, 'publish', actorId, this.publishChange(scope, actorId));
  }

  /**
   * Publishes or unpublishes many entries in the caller's transaction, each as `publish` / `unpublish` would, and
   * reports each entry's outcome (see `lifecycleBatch`). The entries' rows, their events and the new versions are
   * written in one statement each at the end, in the caller's transaction, whose `refreshPublished` then shows them.
   */
  async transitionMany(
    tx: EntityManager,
    scope: ProjectScope,
    items: readonly { id: string; action: 'publish' | 'unpublish' }[],
    actorId: string,
  ) {
    const versions: NewVersion[] = [];
    const outcomes = await this.batch(tx, scope, items, actorId, (action) =>
      action === 'publish' ? this.publishChange(scope, actorId, versions) : unpublishChange,
    );
    // In one statement, now: a refused release or bulk rolls back its transaction, and these rows with it.
    await insertVersions(tx, versions);
    return outcomes;
  }

  /**
   * Brings the published projection up to date for the entries a batch (`transitionMany`) changed, in a few set-based
   * statements, once the caller has decided to commit: each entry's trigger at commit then finds it current, instead
   * of refreshing a hundred entries one by one. Flushes the batch first.
   */
  async refreshPublished(tx: EntityManager, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await tx.flush();
    const refresh = 'select "refresh_published_contents"(array(select jsonb_array_elements_text(?::jsonb)))';
    await sql(tx, refresh, [JSON.stringify(ids)]);
  }

  /** With `batched`, the version row is collected there for the batch's one `insertVersions`, else inserted now. */
  private publishChange(scope: ProjectScope, actorId: string, batched?: NewVersion[]) {
    return async (tx: EntityManager, entry: Content) => {
      const version = nextVersion(entry);
      entry.metadata = { ...entry.metadata, publishedAt: new Date().toISOString(), publishedBy: actorId };
      Object.assign(entry, { status: EntityStatus.published, version, lastPublishedVersion: version });
      const typeVersion = await readTypeVersion(tx, entry.typeId, entry.typeVersion);
      entry.compiled = await this.compile(tx, scope, entry, typeVersion);
      const row: NewVersion = {
        contentId: entry.id,
        ...scope,
        version,
        content: snapshot(entry),
        compiled: entry.compiled,
        // The published links follow the version the projection shows (its refresh copies these, at commit).
        links: collectLinks(typeVersion.content.schema, entry.content),
        createdById: actorId,
        createdAt: new Date(),
      };
      if (batched) batched.push(row);
      else await insertVersions(tx, [row]);
      return version;
    };
  }

  unpublish(em: EntityManager, scope: ProjectScope, id: string, actorId: string) {
    return this.transition(em, scope, id, 'unpublish', actorId, unpublishChange);
  }

  discard(em: EntityManager, scope: ProjectScope, id: string, actorId: string) {
    return this.transition(em, scope, id, 'discard', actorId, async (tx, entry) => {
      const last = await this.version(tx, entry, entry.lastPublishedVersion!);
      Object.assign(entry, last.content, {
        compiled: last.compiled,
        status: EntityStatus.published,
        version: last.version,
      });
      await writeWorkingLinks(tx, scope, entry.id, last.links);
      await keepReferences(tx, scope, entry);
      return last.version;
    });
  }

  rollback(em: EntityManager, scope: ProjectScope, id: string, version: number, actorId: string) {
    return this.transition(em, scope, id, 'rollback', actorId, async (tx, entry) => {
      const from = await this.version(tx, entry, version);
      Object.assign(entry, from.content, { compiled: from.compiled });
      await writeWorkingLinks(tx, scope, entry.id, from.links);
      await keepReferences(tx, scope, entry);
      afterEdit(entry);
      return version;
    });
  }

  /**
   * Refused while another entry references this one (409 `CONTENT_REFERENCED`); the target's reference lock makes a
   * concurrent write that adds a reference wait, then see the deletion. A deleted entry keeps no links of its own.
   */
  delete(em: EntityManager, scope: ProjectScope, id: string, actorId: string) {
    const softDelete = deleteChange('content');
    return this.transition(em, scope, id, 'delete', actorId, async (tx, entry) => {
      await assertNotReferenced(tx, scope, entry.id, 'content');
      await writeWorkingLinks(tx, scope, entry.id, []);
      return softDelete(tx, entry);
    });
  }

  /**
   * The working links come back with the entry. Its references are not checked again: a target deleted meanwhile
   * resolves to nothing, as an unpublished one does for API keys.
   */
  restore(em: EntityManager, scope: ProjectScope, id: string, actorId: string) {
    return this.transition(em, scope, id, 'restore', actorId, async (tx, entry) => {
      const typeVersion = await readTypeVersion(tx, entry.typeId, entry.typeVersion);
      await writeWorkingLinks(tx, scope, entry.id, collectLinks(typeVersion.content.schema, entry.content));
      return restoreChange(tx, entry);
    });
  }

  /** Spec "Migrate rules" 1–5: validated against the target version, then a working copy on the new type version. */
  async migrate(
    em: EntityManager,
    scope: ProjectScope,
    id: string,
    targetTypeVersion: number,
    actorId: string,
  ): Promise<Content> {
    return this.transition(em, scope, id, 'migrate', actorId, async (tx, entry) => {
      const exists = await tx.count(ContentTypeVersion, { contentTypeId: entry.typeId, version: targetTypeVersion });
      if (!exists) {
        throw new AppError('TYPE_VERSION_NOT_FOUND', `Content type version ${targetTypeVersion} does not exist.`, {
          typeId: entry.typeId,
          targetVersion: targetTypeVersion,
        });
      }
      if (targetTypeVersion < entry.typeVersion) {
        throw new AppError('INVALID_MIGRATION', 'The target version is older than the current one.', {
          currentVersion: entry.typeVersion,
          targetVersion: targetTypeVersion,
        });
      }
      const target = await readTypeVersion(tx, entry.typeId, targetTypeVersion);
      const from = await readTypeVersion(tx, entry.typeId, entry.typeVersion);
      // A property the target localizes (or no longer does) changes shape: its value becomes the default locale's.
      const locale = await projectLocale(tx, scope);
      const content = reshapeLocalized(entry.content, from.localized, target.localized, locale.defaultCode);
      await this.validate(tx, scope, content, target, locale);
      entry.content = content;
      // The target version may declare other references: they are checked and recorded under its schema.
      await writeWorkingLinks(tx, scope, entry.id, await checkedLinks(tx, scope, target.content.schema, entry.content));
      Object.assign(entry, { typeVersion: target.version, packageVersion: target.packageVersion });
      afterEdit(entry);
      entry.compiled = await this.compile(tx, scope, entry, target, locale);
    });
  }

  async versions(em: EntityManager, scope: ProjectScope, id: string): Promise<ContentVersion[]> {
    const entry = await this.get(em, scope, id);
    return em.find(ContentVersion, { contentId: entry.id }, { orderBy: { version: 'desc' } });
  }

  async version(em: EntityManager, entry: Content, version: number): Promise<ContentVersion> {
    const row = await em.findOne(ContentVersion, { contentId: entry.id, version });
    if (!row) throw new NotFoundError('ContentVersion', String(version));
    return row;
  }

  /**
   * GET …/content: cursor pages sorted by updatedAt. For the `published` view (API keys) every filter, sort
   * and search runs on the published projection (`published_content`), never on the working copy; every other view
   * reads the working rows (`preview` keys only those in `PREVIEW_STATUSES`). With `query`, the best semantic matches
   * instead, most relevant first; their cursor is the last entry's (score, id), so pages never overlap while
   * embeddings stay put. `compiled: false` (the caller didn't select it) leaves the modules in the database.
   */
  async list(em: EntityManager, scope: ProjectScope, args: ContentListArgs, view: ContentView = ADMIN_VIEW) {
    const order = parseSort(args.sort);
    const schema = await this.documentSchema(em, scope, args, documentField(args.filter, order), view.visibility);
    const chain = view.locale?.chain;
    const where = listWhere(scope, args, view.visibility, schema, chain);
    if (args.query) searchWords(args.query, 'query');
    if (args.query && this.semantic) {
      const limit = parseLimit(args.limit);
      const raw = args.lastKey ?? args.afterKey;
      const after = raw
        ? rankCursor(decodeCursor(raw, args.lastKey ? 'lastKey' : 'afterKey'), args.lastKey ? 'lastKey' : 'afterKey')
        : undefined;
      const ranked = await this.ranked(em, scope, args.query, where, view, after, limit + 1);
      const data = ranked.slice(0, limit);
      const last = data.at(-1);
      const pagination: CursorPagination = {};
      if (ranked.length > limit && last)
        pagination.lastKey = encodeCursor({ value: String(last.score), id: last.entry.id });
      return { data: data.map((r) => r.entry), pagination };
    }
    const text = args.query ? fullText(args.query, 'query') : undefined;
    const published = view.visibility === 'published';
    const byDocument = order.field === 'updatedAt' ? undefined : documentSortKey(schema!, order.field, chain);
    return keysetPage<Content>(em, (published ? PublishedContent : Content) as typeof Content, {
      where: { $and: text ? [...where, text] : where } as FilterQuery<Content>,
      sortField: 'updatedAt',
      sortBy: byDocument && { ...byDocument, cast: 'jsonb' },
      direction: order.direction,
      args,
      // Read-only: plain rows in one query (the published document joined in), no entities.
      rows: (page, orderBy, limit) => readContentRows(em, page, orderBy, limit, { published, ...rowsOf(view) }),
    });
  }

  /**
   * The entries whose document references `id`, newest first (cursor pages): for API keys those whose published
   * version does (the published links, on the published projection), for preview keys and staff the working copies
   * (preview keys: only those in `PREVIEW_STATUSES`). One probe of the links table's target index, no document read.
   */
  async referencedBy(em: EntityManager, scope: ProjectScope, id: string, args: CursorArgs, view: ContentView) {
    const published = view.visibility === 'published';
    const linkScope = published ? 'published' : 'working';
    const linked = raw(
      (alias) =>
        `(${alias}.id in (select l.from_id from content_link l where l.target_id = ? and l.scope = ? and l.project_id = ?))`,
      [id, linkScope, scope.projectId],
    );
    const where = [...listWhere(scope, {}, view.visibility), { [linked]: true } as FilterQuery<Content>];
    return keysetPage<Content>(em, (published ? PublishedContent : Content) as typeof Content, {
      where: { $and: where } as FilterQuery<Content>,
      sortField: 'updatedAt',
      direction: 'desc',
      args,
      rows: (page, orderBy, limit) => readContentRows(em, page, orderBy, limit, { published, ...rowsOf(view) }),
    });
  }

  /**
   * The entries each of `ids` references, in document order and each once, as the caller sees them: API keys follow
   * the published links to published targets, preview keys and staff the working links to working copies (preview:
   * `PREVIEW_STATUSES`; staff: every entry that is not deleted). A target the caller can't see is left out. Two
   * queries for any number of entries (a page's `references` fields are batched into one call).
   */
  async referencesOf(
    em: EntityManager,
    scope: ProjectScope,
    ids: readonly string[],
    view: ContentView,
  ): Promise<Map<string, Content[]>> {
    const published = view.visibility === 'published';
    const links = ids.length ? await linksOf(em, scope, ids, published ? 'published' : 'working') : [];
    const targetIds = [...new Set(links.filter((l) => l.target_kind === 'content').map((l) => l.target_id))];
    const byId = new Map((await visibleContentRows(em, scope, targetIds, view)).map((row) => [row.id, row]));
    const result = new Map<string, Content[]>(ids.map((id) => [id, []]));
    const seen = new Map<string, Set<string>>(ids.map((id) => [id, new Set()]));
    for (const link of links) {
      const target = link.target_kind === 'content' ? byId.get(link.target_id) : undefined;
      if (!target || seen.get(link.from_id)!.has(target.id)) continue;
      seen.get(link.from_id)!.add(target.id);
      result.get(link.from_id)!.push(target);
    }
    return result;
  }

  /**
   * Every entry and asset reachable from `rootIds` through references, up to `depth` hops, each once and none of
   * `rootIds` itself, as the caller sees them (the rules of `referencesOf`: API keys follow published links to
   * published targets). Hop by hop: the frontier's links in one query, their entries and assets in one query each,
   * so a request costs the same few statements whatever its page size; only the depth adds to them.
   */
  async includesOf(
    em: EntityManager,
    scope: ProjectScope,
    rootIds: readonly string[],
    depth: number,
    view: ContentView,
  ): Promise<{ content: Content[]; assets: { id: string }[] }> {
    const linkScope = view.visibility === 'published' ? 'published' : 'working';
    const seen = new Set(rootIds);
    const content: Content[] = [];
    const assets: { id: string }[] = [];
    let frontier = [...seen];
    for (let hop = 0; hop < depth && frontier.length > 0; hop++) {
      const links = await linksOf(em, scope, frontier, linkScope);
      const fresh = (kind: string) => [
        ...new Set(links.filter((l) => l.target_kind === kind && !seen.has(l.target_id)).map((l) => l.target_id)),
      ];
      const entryIds = fresh('content');
      const assetIds = fresh('asset');
      const byId = new Map((await visibleContentRows(em, scope, entryIds, view)).map((row) => [row.id, row]));
      const liveAssets = new Set(await liveAssetIds(em, scope, assetIds));
      frontier = [];
      // In link order (the frontier's entries, each in document order), each target once.
      for (const id of entryIds) {
        const row = byId.get(id);
        if (!row) continue;
        seen.add(id);
        content.push(row);
        frontier.push(id);
      }
      for (const id of assetIds) {
        if (!liveAssets.has(id)) continue;
        seen.add(id);
        assets.push({ id });
      }
    }
    return { content, assets };
  }

  /**
   * POST …/content as a search: filter operators, sort, offset pages with the total; `query` ranks by meaning.
   * `view` as for `list`: an API key's filters apply to the published projection, a preview key's to working rows.
   */
  async search(em: EntityManager, scope: ProjectScope, input: SearchContentInput, view: ContentView = ADMIN_VIEW) {
    const { page, limit, offset } = parseOffsetArgs(input);
    const order = sortOrder(input.sort);
    const field = documentField(input.filter, order);
    const schema = await this.documentSchema(em, scope, { filter: input.filter }, field, view.visibility);
    const chain = view.locale?.chain;
    const where = [
      ...listWhere(scope, { search: input.search }, view.visibility),
      ...searchWhere(input.filter, view.visibility, schema, chain),
    ];
    const published = view.visibility === 'published';
    if (input.query) searchWords(input.query, 'query');
    if (input.query && this.semantic) {
      // Every entry above the similarity threshold that passes the filters, most similar first: the total is exact and
      // every page is reachable (no cap on the ranking, unlike a cursor page of the list).
      const ranking = await this.semantic.rank(em, scope, input.query, published);
      return RawQueryFragment.run(async () => {
        const passing = await matchingIds(
          em,
          where,
          ranking.map((r) => r.id),
          published,
        );
        const hits = ranking.filter((r) => passing.has(r.id));
        const ids = hits.slice(offset, offset + limit).map((r) => r.id);
        const data = await this.rowsInOrder(em, scope, ids, limit, view);
        return { data, pagination: { page, limit, total: hits.length } };
      });
    }
    const text = input.query ? fullText(input.query, 'query') : undefined;
    const filter = { $and: text ? [...where, text] : where } as FilterQuery<Content>;
    return offsetPage(
      em,
      (published ? PublishedContent : Content) as typeof Content,
      filter,
      input,
      order.field === 'updatedAt'
        ? { updatedAt: order.direction, id: 'asc' }
        : { [raw((alias) => documentSortKey(schema!, order.field, chain).sql(alias))]: order.direction, id: 'asc' },
      (page, orderBy, limit, offset) =>
        readContentRows(em, page, orderBy, limit, { published, ...rowsOf(view), offset }),
    );
  }

  /**
   * Entries matching `where`, ordered by semantic similarity to `query`: at most `max` of the best 500 ranked after
   * `after` — filters apply after ranking, so a page may hold fewer than `max` when many are filtered out.
   */
  private async ranked(
    em: EntityManager,
    scope: ProjectScope,
    query: string,
    where: FilterQuery<Content>[],
    view: ContentView,
    after: { score: number; id: string } | undefined,
    max: number,
  ): Promise<{ entry: Content; score: number }[]> {
    const published = view.visibility === 'published';
    const all = await this.semantic!.rank(em, scope, query, published);
    const past = after ? all.filter((r) => r.score < after.score || (r.score === after.score && r.id > after.id)) : all;
    const ranking = past.slice(0, Math.max(max, 500));
    return RawQueryFragment.run(async () => {
      const passing = await matchingIds(
        em,
        where,
        ranking.map((r) => r.id),
        published,
      );
      const hits = ranking.filter((r) => passing.has(r.id)).slice(0, max);
      const scores = new Map(hits.map((r) => [r.id, r.score]));
      const rows = await this.rowsInOrder(em, scope, [...scores.keys()], max, view);
      return rows.map((entry) => ({ entry, score: scores.get(entry.id)! }));
    });
  }

  /** The entries `ids` (all known to match), in that order, as one page of plain rows. */
  private async rowsInOrder(em: EntityManager, scope: ProjectScope, ids: string[], limit: number, view: ContentView) {
    if (ids.length === 0) return [];
    const chosen = { organizationId: scope.organizationId, projectId: scope.projectId, id: { $in: ids } };
    const published = view.visibility === 'published';
    const rows = await readContentRows(em, chosen, {}, limit, { published, ...rowsOf(view), offset: 0 });
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /**
   * A `select`'s `content.<path>`s checked against the schema filters are checked against, when the request selects
   * one content type; without one, any well-formed path is answered (absent where a document lacks it).
   */
  async assertSelectable(
    em: EntityManager,
    scope: ProjectScope,
    selection: Parameters<typeof selectedTypeId>[0],
    chosen: DocumentSelection,
    visibility: Visibility,
  ): Promise<void> {
    if (chosen.paths.length === 0 || !selectedTypeId(selection)) return;
    const schema = await this.documentSchema(em, scope, selection, chosen.paths[0].field, visibility);
    assertSelectablePaths(chosen, schema!);
  }

  /**
   * The schema `content.<path>` filters and sorts are checked against, when the request names one (`field`): the
   * selected type's latest published version for API keys (what their entries follow), its working schema for staff
   * and preview keys.
   */
  private async documentSchema(
    em: EntityManager,
    scope: ProjectScope,
    selection: Parameters<typeof selectedTypeId>[0],
    field: string | undefined,
    visibility: Visibility,
  ): Promise<Record<string, unknown> | undefined> {
    if (!field) return undefined;
    const typeId = selectedTypeId(selection);
    if (!typeId)
      throw new BadRequestError(`"${field}" needs exactly one content type selected (\`typeId\`).`, { field });
    // A plain row, no entity: this runs on every filtered read, and type versions are read once and kept.
    const type = (await em.getConnection().execute(
      `select ${visibility === 'published' ? '' : '"schema", '}"last_published_version" as "version" from "content_type"
          where "id" = ? and "organization_id" = ? and "project_id" = ? and "status" <> 'deleted'`,
      [typeId, scope.organizationId, scope.projectId],
      'get',
      em.getTransactionContext(),
    )) as { schema?: Record<string, unknown>; version: number | null } | undefined;
    if (visibility === 'published') {
      if (!type?.version)
        throw new BadRequestError(`"${field}": the selected content type has no published version.`, { field, typeId });
      return (await readTypeVersion(em, typeId, type.version)).content.schema;
    }
    if (!type?.schema)
      throw new BadRequestError(`"${field}": the selected content type does not exist.`, { field, typeId });
    return type.schema;
  }

  private async latestTypeVersion(em: EntityManager, scope: ProjectScope, typeId: string): Promise<FrozenTypeVersion> {
    const type = await em.findOne(ContentType, {
      id: typeId,
      organizationId: scope.organizationId,
      projectId: scope.projectId,
      lastPublishedVersion: { $ne: null },
      status: { $ne: EntityStatus.deleted },
    });
    // A type that was never published has no schema content can follow yet (decision: 404 like an unknown type).
    if (!type)
      throw new AppError('CONTENT_TYPE_NOT_FOUND', 'The content type does not exist or has no published version.', {
        typeId,
      });
    return readTypeVersion(em, type.id, type.lastPublishedVersion!);
  }

  /**
   * A stored document (localized properties hold every locale's values) against its type version: the default
   * locale's document, and every other locale's values (content-validation.ts).
   */
  private async validate(
    em: EntityManager,
    scope: ProjectScope,
    document: Record<string, unknown>,
    typeVersion: FrozenTypeVersion,
    locale?: LocaleRequest,
  ): Promise<void> {
    // Without a component tree there is nothing to check against the catalog: no query for it.
    const allowList = typeVersion.content.componentIdsAllowList ?? [];
    const allowed = document.components === undefined ? new Map() : await allowedComponents(em, scope, allowList);
    const localized = typeVersion.localized.length ? { keys: typeVersion.localized, locale: locale! } : undefined;
    validateDocument(document, typeVersion.content.schema, allowed, localized);
  }

  /**
   * The module stored with the entry: for a type with localized properties, the default locale's (reads in other
   * locales build their own, content-locales.ts).
   */
  private async compile(
    tx: EntityManager,
    scope: ProjectScope,
    entry: Content,
    typeVersion: FrozenTypeVersion,
    locale?: LocaleRequest,
  ): Promise<string> {
    const { id, name, typeId, packageVersion, version } = entry;
    let content = entry.content;
    if (typeVersion.localized.length) {
      const request = inDefault(locale ?? (await projectLocale(tx, scope)));
      content = localizedDocument(content, typeVersion.localized, request);
    }
    const compilable = { id, name, typeId, typeVersion: entry.typeVersion, packageVersion, version, content };
    return compileContent(tx, scope, compilable, typeVersion.content.layoutComponentId);
  }
}

/** What a view asks of the rows read for it. */
const rowsOf = (view: ContentView) => ({ compiled: view.compiled, locale: view.locale });

function snapshot(entry: Content): ContentSnapshot {
  const { name, description, content, tags, folderId, metadata, typeVersion, packageVersion, isTemplate } = entry;
  return { name, description, content, tags, folderId, metadata, typeVersion, packageVersion, isTemplate };
}

/** A ranked page's cursor carries the last entry's similarity score; anything else in it is a tampered cursor. */
function rankCursor(position: { value: string; id: string }, parameter: string): { score: number; id: string } {
  const score = Number(position.value);
  if (position.value === '' || !Number.isFinite(score))
    throw new BadRequestError(`${parameter} is not a valid cursor.`, { parameter });
  return { score, id: position.id };
}

/** Metadata members only the server writes: the creating user and the last publish. */
const SERVER_OWNED = ['author', 'publishedAt', 'publishedBy'] as const;

/** The client's metadata with the server-owned members taken from `current` (a client's values for them are ignored). */
function clientMetadata(
  input: Record<string, unknown> | undefined,
  current: Record<string, unknown>,
): Record<string, unknown> {
  const metadata: Record<string, unknown> = { ...input };
  for (const key of SERVER_OWNED) {
    if (current[key] === undefined) delete metadata[key];
    else metadata[key] = current[key];
  }
  return metadata;
}

/**
 * A version brought back (discard, rollback) may name a folder deleted since, which leaves the entry unfiled as the
 * folder's deletion did, and tags deleted since, whose records come back.
 */
async function keepReferences(tx: EntityManager, scope: ProjectScope, entry: Content): Promise<void> {
  if (entry.folderId && (await tx.count(Folder, { ...scope, id: entry.folderId })) === 0) entry.folderId = null;
  await ensureTags(tx, scope, entry.tags);
}
