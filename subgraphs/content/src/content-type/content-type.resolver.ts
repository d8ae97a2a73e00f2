// GraphQL surface of content types; REST routes are derived from these fields (see routes.ts).
import {
  authorizeClientRead,
  authorizeProject,
  CursorArgs,
  CursorList,
  ProjectScopeArgs,
  VersionList,
  type Context,
  UserReference,
  userRef,
  VersionFieldsResolver,
  ExpectedRevisionArgs,
  LifecycleMutations,
} from '@cp/graphql';
import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { ContentTypeVersion } from './content-type-version.entity';
import { ContentType } from './content-type.entity';
import { ContentTypeStatusInput, CreateContentTypeInput, UpdateContentTypeInput } from './content-type.inputs';
import { ContentTypeService } from './content-type.service';
import { getVisibleContentType, listVisibleContentTypes } from './published-content-types';

const ContentTypeList = CursorList(ContentType, 'ContentTypeList');
const ContentTypeVersionList = VersionList(ContentTypeVersion, 'ContentTypeVersionList');
const idArg = { description: 'The content type.' };
const body = { description: 'The request body (REST: the JSON body).' };

/** Reads, create and update: the schema lists them before the lifecycle mutations. */
@Resolver(() => ContentType)
class ContentTypeReadsAndEdits {
  readonly service = new ContentTypeService();

  @Query(() => ContentTypeList, {
    description:
      'Content types of a project, newest first (cursor pagination); API keys see last published versions, preview keys working copies.',
  })
  async contentTypes(@Args() scope: ProjectScopeArgs, @Args() page: CursorArgs, @Ctx() ctx: Context) {
    const { visibility } = await authorizeClientRead(ctx, scope, 'contentTypes');
    if (visibility === 'admin') return this.service.list(ctx.em, scope, page);
    return listVisibleContentTypes(ctx.em, scope, page, visibility);
  }

  @Query(() => ContentType, {
    description: 'One content type; API keys see its last published version, preview keys its working copy.',
  })
  async contentType(@Args() scope: ProjectScopeArgs, @Arg('id', () => ID, idArg) id: string, @Ctx() ctx: Context) {
    const { visibility } = await authorizeClientRead(ctx, scope, 'contentTypes');
    if (visibility === 'admin') return this.service.get(ctx.em, scope, id);
    return getVisibleContentType(ctx.em, scope, id, visibility);
  }

  @Query(() => ContentTypeVersionList, {
    description: 'Published versions of a content type, newest first, not paginated.',
  })
  async contentTypeVersions(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Ctx() ctx: Context,
  ) {
    const { visibility } = await authorizeClientRead(ctx, scope, 'contentTypes');
    if (visibility !== 'admin') await getVisibleContentType(ctx.em, scope, id, visibility);
    return { data: await this.service.versions(ctx.em, scope, id) };
  }

  @Mutation(() => ContentType, { description: 'Creates a content type in `draft`.' })
  async createContentType(
    @Args() scope: ProjectScopeArgs,
    @Arg('input', body) input: CreateContentTypeInput,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'contentTypes', 'create');
    return this.service.create(ctx.em, scope, input, user.userId);
  }

  @Mutation(() => ContentType, { description: 'Changes the members given; a published type becomes `modified`.' })
  async updateContentType(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Arg('input', body) input: UpdateContentTypeInput,
    @Args() _revision: ExpectedRevisionArgs,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'contentTypes', 'update');
    return this.service.update(ctx.em, scope, id, input, user.userId);
  }
}

/** The lifecycle mutations, after create and update in the schema (lifecycle-mutations.ts in @cp/graphql). */
const ContentTypeLifecycle = LifecycleMutations(ContentTypeReadsAndEdits, {
  type: ContentType,
  name: 'ContentType',
  resource: 'contentTypes',
  idDescription: idArg.description,
  mutations: {
    publish: 'Publishes the next consecutive version and pins the latest package.',
    unpublish: 'Withdraws a published type; its version is kept.',
    discard: 'Cancels the working copy of a `modified` type.',
    rollback: 'Makes a working copy from an earlier version of a `published` type.',
    delete: 'Soft-deletes a content type; history is kept.',
    restore: 'Restores a deleted type as `modified` (or `draft` if never published).',
  },
});

@Resolver(() => ContentType)
export class ContentTypeResolver extends ContentTypeLifecycle {
  @Mutation(() => ContentType, {
    description: 'Direct status override (draft, published, deleted); prefer publish, unpublish and discard.',
  })
  async setContentTypeStatus(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Arg('input', body) input: ContentTypeStatusInput,
    @Args() _revision: ExpectedRevisionArgs,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'contentTypes', 'update');
    return this.service.setStatus(ctx.em, scope, id, input.status, user.userId);
  }

  @FieldResolver(() => UserReference, { description: 'The user who created the type.' })
  createdBy(@Root('createdById') createdById: string): UserReference {
    return userRef(createdById);
  }
}

export const ContentTypeVersionResolver = VersionFieldsResolver(ContentTypeVersion);
