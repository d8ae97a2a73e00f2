// GraphQL surface of content entries; REST routes are derived from these fields (see routes.ts).
import {
  authorizeClientRead,
  authorizeProject,
  CursorArgs,
  CursorList,
  JSONObjectScalar,
  OffsetList,
  ProjectScopeArgs,
  selects,
  VersionList,
  type Context,
  type LocaleRequest,
  UserReference,
  userRef,
  VersionFieldsResolver,
  ExpectedRevisionArgs,
  LifecycleMutations,
  requestLoader,
} from '@cp/graphql';
import type { GraphQLObjectType, GraphQLResolveInfo, GraphQLSchema } from 'graphql';
import {
  Arg,
  Args,
  Ctx,
  Field,
  FieldResolver,
  ID,
  Info,
  Int,
  Mutation,
  ObjectType,
  Query,
  Resolver,
  Root,
} from 'type-graphql';
import { ContentTypeVersion } from '../content-type/content-type-version.entity';
import { Content, ContentVersion } from './content.entity';
import {
  ContentListArgs,
  CreateContentInput,
  LOCALE_DESCRIPTION,
  MigrateInput,
  SearchContentInput,
  SELECT_DESCRIPTION,
  UpdateContentInput,
  WRITE_LOCALE_DESCRIPTION,
} from './content.inputs';
import { LOCALE, localizeRows, requestLocale, type LocalizedEntry } from './content-locales';
import { parseSelect, withSelectedDocument, type DocumentSelection } from './content-select';
import { ContentService } from './content.service';
import { AssetReference } from './asset-reference';
import { linkedAssets } from './content-links';
import { getResolvedContent, getVisibleContent } from './published-content';
import { ContentIncludes, INCLUDE, parseInclude, withInclude, type WithInclude } from './content-includes';

const selectArg = { nullable: true, description: SELECT_DESCRIPTION };
const localeArg = { nullable: true, description: LOCALE_DESCRIPTION };
const writeLocaleArg = { nullable: true, description: WRITE_LOCALE_DESCRIPTION };

/** The fields of an entry type (`Content`, `ResolvedContent`): the entry-field names `select` accepts. */
const entryFieldsBySchema = new WeakMap<GraphQLSchema, Map<string, ReadonlySet<string>>>();
function entryFields(info: GraphQLResolveInfo, typeName: string): ReadonlySet<string> {
  let byType = entryFieldsBySchema.get(info.schema);
  if (!byType) entryFieldsBySchema.set(info.schema, (byType = new Map()));
  let fields = byType.get(typeName);
  if (!fields) {
    const type = info.schema.getType(typeName);
    // Duck-typed: the schema may come from another copy of graphql than this module's (tests load both).
    fields = new Set(type && 'getFields' in type ? Object.keys((type as GraphQLObjectType).getFields()) : []);
    byType.set(typeName, fields);
  }
  return fields;
}

/** A page with its entries' documents pruned to the selection (a new page object; the rows are not changed). */
function selectedPage<P extends { data: Content[] }>(page: P, selection: DocumentSelection | undefined): P {
  return selection ? { ...page, data: page.data.map((e) => withSelectedDocument(e, selection)) } : page;
}

const ContentList = CursorList(Content, 'ContentList');
const ContentVersionList = VersionList(ContentVersion, 'ContentVersionList');
const ContentSearchResult = OffsetList(Content, 'ContentSearchResult');
const idArg = { description: 'The content entry.' };
const body = { description: 'The request body (REST: the JSON body).' };
const includeArg = {
  nullable: true,
  description:
    'Also answer `includes`: the entries and assets this entry references, to this many hops (0–3, default 0).',
};

@ObjectType({
  description:
    'An entry with its compiled module and the content type version it follows (published; preview keys: working).',
})
class ResolvedContent extends Content {
  @Field(() => ContentTypeVersion, { description: 'The content type as of the entry’s type version.' })
  contentType!: ContentTypeVersion;
}

/** Reads, create and update: the schema lists them before the lifecycle mutations. */
@Resolver(() => Content)
class ContentReadsAndEdits {
  constructor(readonly service: ContentService) {}

  @Query(() => ContentList, {
    description:
      'Entries of a project by `updatedAt` (cursor pagination); API keys see published versions only, preview keys working copies.',
  })
  async contents(
    @Args() scope: ProjectScopeArgs,
    @Args() args: ContentListArgs,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ) {
    const { visibility } = await authorizeClientRead(ctx, scope, 'content');
    const depth = parseInclude(args.include);
    const locale = await requestLocale(ctx, scope, args.locale);
    const selection = parseSelect(args.select, entryFields(info, 'Content'));
    if (selection) await this.service.assertSelectable(ctx.em, scope, args, selection, visibility);
    const page = await this.service.list(ctx.em, scope, args, {
      visibility,
      compiled: selects(info, ['data', 'compiled']),
      locale,
    });
    return withInclude(selectedPage(page, selection), { scope, depth, visibility, locale });
  }

  @Query(() => ContentSearchResult, {
    description: 'Advanced search: filter operators, sort, offset pages with the total.',
  })
  async searchContent(
    @Args() scope: ProjectScopeArgs,
    @Arg('input', () => SearchContentInput, { nullable: true, ...body }) input: SearchContentInput | undefined,
    @Arg('locale', () => String, localeArg) requested: string | undefined,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ) {
    const { visibility } = await authorizeClientRead(ctx, scope, 'content');
    const compiled = selects(info, ['data', 'compiled']);
    const depth = parseInclude(input?.include);
    const locale = await requestLocale(ctx, scope, requested);
    const selection = parseSelect(input?.select, entryFields(info, 'Content'));
    if (selection) await this.service.assertSelectable(ctx.em, scope, { filter: input?.filter }, selection, visibility);
    const page = await this.service.search(ctx.em, scope, input ?? {}, { visibility, compiled, locale });
    return withInclude(selectedPage(page, selection), { scope, depth, visibility, locale });
  }

  @Query(() => Content, { description: 'One entry.' })
  async content(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Arg('include', () => Int, includeArg) include: number | undefined,
    @Arg('select', () => [String], selectArg) select: string[] | undefined,
    @Arg('locale', () => String, localeArg) requested: string | undefined,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ) {
    const { visibility } = await authorizeClientRead(ctx, scope, 'content');
    const depth = parseInclude(include);
    const locale = await requestLocale(ctx, scope, requested);
    const selection = parseSelect(select, entryFields(info, 'Content'));
    const entry =
      visibility === 'admin'
        ? await this.service.read(ctx.em, scope, id, locale)
        : await getVisibleContent(ctx.em, scope, id, visibility, locale);
    return withInclude(withSelectedDocument(entry, selection), { scope, depth, visibility, locale });
  }

  @Query(() => ResolvedContent, {
    description:
      'The published entry (preview keys: the working copy) with its compiled module and its content type version.',
  })
  async resolvedContent(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Arg('include', () => Int, includeArg) include: number | undefined,
    @Arg('select', () => [String], selectArg) select: string[] | undefined,
    @Arg('locale', () => String, localeArg) requested: string | undefined,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ) {
    const { visibility } = await authorizeClientRead(ctx, scope, 'content');
    const depth = parseInclude(include);
    const locale = await requestLocale(ctx, scope, requested);
    const selection = parseSelect(select, entryFields(info, 'ResolvedContent'));
    // Staff resolve what clients are served (the published version); a preview key what they will be. Its includes
    // follow the same view.
    const view = visibility === 'preview' ? 'preview' : 'published';
    const entry = withSelectedDocument(await getResolvedContent(ctx.em, scope, id, view, locale), selection);
    return withInclude(entry, { scope, depth, visibility: view, locale });
  }

  @Query(() => ContentVersionList, { description: 'Published versions of an entry, newest first, not paginated.' })
  async contentVersions(@Args() scope: ProjectScopeArgs, @Arg('id', () => ID, idArg) id: string, @Ctx() ctx: Context) {
    await authorizeProject(ctx, scope, 'content', 'read');
    return { data: await this.service.versions(ctx.em, scope, id) };
  }

  @Mutation(() => Content, { description: 'Creates a `draft` entry on the latest published version of its type.' })
  async createContent(
    @Args() scope: ProjectScopeArgs,
    @Arg('input', body) input: CreateContentInput,
    @Arg('locale', () => String, writeLocaleArg) requested: string | undefined,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'content', 'create');
    const locale = await requestLocale(ctx, scope, requested);
    return localizedAnswer(ctx, await this.service.create(ctx.em, scope, input, user.userId, locale), locale);
  }

  @Mutation(() => Content, { description: 'Changes the members given; a published entry becomes `modified`.' })
  async updateContent(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Arg('input', body) input: UpdateContentInput,
    @Arg('locale', () => String, writeLocaleArg) requested: string | undefined,
    @Args() _revision: ExpectedRevisionArgs,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'content', 'update');
    const locale = await requestLocale(ctx, scope, requested);
    return localizedAnswer(ctx, await this.service.update(ctx.em, scope, id, input, user.userId, locale), locale);
  }
}

/** The lifecycle mutations, after create and update in the schema (lifecycle-mutations.ts in @cp/graphql). */
const ContentLifecycle = LifecycleMutations(ContentReadsAndEdits, {
  type: Content,
  name: 'Content',
  resource: 'content',
  idDescription: idArg.description,
  mutations: {
    publish: 'Publishes the next consecutive version.',
    unpublish: 'Withdraws a published entry from clients; its version is kept.',
    discard: 'Cancels the working copy of a `modified` entry.',
    rollback: 'Makes a working copy from an earlier version of a `published` entry.',
    delete: 'Soft-deletes an entry; history is kept.',
    restore: 'Restores a deleted entry as `modified` (or `draft` if never published).',
  },
});

@Resolver(() => Content)
export class ContentResolver extends ContentLifecycle {
  @Mutation(() => Content, { description: 'Moves an entry to a newer version of its type (spec “Migrate rules”).' })
  async migrateContent(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Arg('input', body) input: MigrateInput,
    @Args() _revision: ExpectedRevisionArgs,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'content', 'update');
    return this.service.migrate(ctx.em, scope, id, input.targetTypeVersion, user.userId);
  }

  @FieldResolver(() => UserReference, { description: 'The user who created the entry.' })
  createdBy(@Root('createdById') createdById: string): UserReference {
    return userRef(createdById);
  }

  @Query(() => ContentList, {
    description:
      'The entries whose document references this entry, newest first (cursor pagination). API keys get the entries whose published version references it; preview keys and staff the working copies.',
  })
  async contentReferencedBy(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Args() args: CursorArgs,
    @Arg('locale', () => String, localeArg) requested: string | undefined,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ) {
    const { visibility } = await authorizeClientRead(ctx, scope, 'content');
    const locale = await requestLocale(ctx, scope, requested);
    // The entry itself must be one the caller can read (404 otherwise), as for a read of it.
    if (visibility === 'admin') await this.service.read(ctx.em, scope, id);
    else await getVisibleContent(ctx.em, scope, id, visibility);
    const compiled = selects(info, ['data', 'compiled']);
    return this.service.referencedBy(ctx.em, scope, id, args, { visibility, compiled, locale });
  }

  @FieldResolver(() => [Content], {
    description:
      'The entries this entry’s document references, in document order, each once. API keys follow the published version to published entries; an entry you cannot see is left out.',
  })
  async references(
    @Root() entry: LocalizedEntry,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Content[]> {
    const scope = entryScope(entry);
    const { visibility } = await authorizeClientRead(ctx, scope, 'content');
    const compiled = selects(info, ['compiled']);
    // The targets are read in the locale this entry was.
    const locale = entry[LOCALE] ?? (await requestLocale(ctx, scope));
    // One loader per request and view: every entry of a page asks in the same tick, and two queries answer them all.
    const key = `Content.references:${scope.organizationId}:${scope.projectId}:${visibility}:${compiled}:${locale.code}`;
    const loader = requestLoader<{ id: string; targets: Content[] }>(ctx, key, async (ids) => {
      const found = await this.service.referencesOf(ctx.em, scope, ids, { visibility, compiled, locale });
      return [...found].map(([id, targets]) => ({ id, targets }));
    });
    return (await loader.load(entry.id))?.targets ?? [];
  }

  @FieldResolver(() => [AssetReference], {
    description:
      'The assets this entry’s document references, in document order, each once (API keys: those of the published version); deleted assets are left out.',
  })
  async referencedAssets(@Root() entry: Content, @Ctx() ctx: Context): Promise<AssetReference[]> {
    const scope = entryScope(entry);
    const { visibility } = await authorizeClientRead(ctx, scope, 'content');
    const linkScope = visibility === 'published' ? 'published' : 'working';
    const key = `Content.referencedAssets:${scope.organizationId}:${scope.projectId}:${linkScope}`;
    const loader = requestLoader<{ id: string; assets: string[] }>(ctx, key, async (ids) => {
      const found = await linkedAssets(ctx.em, scope, ids, linkScope);
      return [...found].map(([id, assets]) => ({ id, assets }));
    });
    return ((await loader.load(entry.id))?.assets ?? []).map((id) => ({ id }));
  }

  @FieldResolver(() => ContentList, {
    description:
      'The entries whose document references this one, newest first (cursor pagination), as `contentReferencedBy` lists them.',
  })
  async referencedBy(
    @Root() entry: LocalizedEntry,
    @Args() args: CursorArgs,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ) {
    const scope = entryScope(entry);
    const { visibility } = await authorizeClientRead(ctx, scope, 'content');
    const compiled = selects(info, ['data', 'compiled']);
    const locale = entry[LOCALE] ?? (await requestLocale(ctx, scope));
    return this.service.referencedBy(ctx.em, scope, entry.id, args, { visibility, compiled, locale });
  }

  @FieldResolver(() => JSONObjectScalar, {
    name: 'content',
    description:
      'The document; `components` holds the component tree. Localized properties answer the entry’s `locale` (`*`: maps of every locale’s values).',
  })
  document(@Root() entry: LocalizedEntry, @Ctx() ctx: Context): Document | Promise<Document> {
    // Reads localize their rows (sync here, as most fields are); an answer no read localized (a lifecycle mutation's
    // entry) is read in the project's default locale.
    if (entry[LOCALE]) return entry.content;
    return requestLocale(ctx, entryScope(entry))
      .then((locale) => localizedAnswer(ctx, entry, locale, false))
      .then((answer) => answer.content);
  }

  @FieldResolver(() => String, {
    description: 'The locale this entry’s localized properties are answered in (the requested code, or `*`).',
  })
  locale(@Root() entry: LocalizedEntry, @Ctx() ctx: Context): string | Promise<string> {
    return entry[LOCALE]?.code ?? requestLocale(ctx, entryScope(entry)).then((locale) => locale.code);
  }

  @FieldResolver(() => ContentIncludes, {
    nullable: true,
    description:
      'With `include` > 0 on the field that answered this entry (`content`, `resolvedContent`): the entries and assets it references, to that many hops, each once and never this entry; otherwise null. (`references` follows one hop per level.)',
  })
  includes(
    @Root() entry: WithInclude<Content>,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<ContentIncludes | null> {
    return includesFor(this.service, entry, [entry.id], ctx, info);
  }
}

type Document = Record<string, unknown>;

const entryScope = (entry: Content) => ({ organizationId: entry.organizationId, projectId: entry.projectId });

/** A written entry as answered in the locale it was written in: a copy, the entity itself is the ORM's. */
async function localizedAnswer(
  ctx: Context,
  entry: Content,
  locale: LocaleRequest,
  compiled = true,
): Promise<LocalizedEntry> {
  const copy = { ...entry } as LocalizedEntry;
  await localizeRows(ctx.em, [copy], locale, { compiled, published: false });
  return copy;
}

/** What `includes` answers for a root field's answer: null unless the field was asked for `include` > 0. */
async function includesFor(
  service: ContentService,
  answer: WithInclude<object>,
  rootIds: string[],
  ctx: Context,
  info: GraphQLResolveInfo,
): Promise<ContentIncludes | null> {
  const request = answer[INCLUDE];
  if (!request) return null;
  const compiled = selects(info, ['content', 'compiled']);
  const view = { visibility: request.visibility, compiled, locale: request.locale };
  return service.includesOf(ctx.em, request.scope, rootIds, request.depth, view);
}

const listIncludes = {
  nullable: true,
  description:
    'With `include` > 0 on the field that answered this page: the entries and assets its entries reference, to that many hops, each once and none already in `data`; otherwise null. (GraphQL can also follow `references`.)',
};

/** The `includes` field of a page: lists and searches answer it alike. */
function PageIncludesResolver(page: typeof ContentList | typeof ContentSearchResult) {
  @Resolver(() => page)
  class PageIncludes {
    constructor(readonly service: ContentService) {}

    @FieldResolver(() => ContentIncludes, listIncludes)
    includes(@Root() list: WithInclude<{ data: Content[] }>, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo) {
      const ids = list.data.map((e) => e.id);
      return includesFor(this.service, list, ids, ctx, info);
    }
  }
  return PageIncludes;
}

export const ContentListIncludesResolver = PageIncludesResolver(ContentList);
export const ContentSearchIncludesResolver = PageIncludesResolver(ContentSearchResult);

export const ContentVersionResolver = VersionFieldsResolver(ContentVersion);

/**
 * A version as the spec lists it (`{version, status, content, createdAt, createdBy}`): `content` is the entry's
 * document as published, the same value as the entry's own `content`; the other frozen members stand beside it.
 */
@Resolver(() => ContentVersion)
export class ContentVersionSnapshotResolver {
  @FieldResolver(() => JSONObjectScalar, {
    description: 'The document as published (the entry’s `content` in this version).',
  })
  content(@Root() v: ContentVersion) {
    return v.content.content;
  }

  @FieldResolver(() => String, { description: 'Name in this version.' })
  name(@Root() v: ContentVersion) {
    return v.content.name;
  }

  @FieldResolver(() => String, { nullable: true, description: 'Description in this version.' })
  description(@Root() v: ContentVersion) {
    return v.content.description ?? null;
  }

  @FieldResolver(() => [String], { description: 'Tag names in this version.' })
  tags(@Root() v: ContentVersion) {
    return v.content.tags;
  }

  @FieldResolver(() => ID, { nullable: true, description: 'Folder in this version.' })
  folderId(@Root() v: ContentVersion) {
    return v.content.folderId ?? null;
  }

  @FieldResolver(() => Boolean, { description: 'Whether the entry was a template in this version.' })
  isTemplate(@Root() v: ContentVersion) {
    return v.content.isTemplate;
  }

  @FieldResolver(() => JSONObjectScalar, { description: 'Metadata in this version (`publishedAt`, `publishedBy`, …).' })
  metadata(@Root() v: ContentVersion) {
    return v.content.metadata;
  }

  @FieldResolver(() => Int, { description: 'The content type version this version follows.' })
  typeVersion(@Root() v: ContentVersion) {
    return v.content.typeVersion;
  }

  @FieldResolver(() => String, { description: 'Package version of this version.' })
  packageVersion(@Root() v: ContentVersion) {
    return v.content.packageVersion;
  }
}
