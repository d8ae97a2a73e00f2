// GraphQL surface of content types; REST routes are derived from these fields (see routes.ts).
import { authorizeClientRead, authorizeProject, CursorArgs, CursorList, ProjectScopeArgs, type Context, UserReference, userRef } from '@cp/graphql';
import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { ContentType } from './content-type.entity';
import { CreateContentTypeInput, UpdateContentTypeInput } from './content-type.inputs';
import { ContentTypeService } from './content-type.service';

const ContentTypeList = CursorList(ContentType, 'ContentTypeList');

@Resolver(() => ContentType)
export class ContentTypeResolver {
  private readonly service = new ContentTypeService();

  @Query(() => ContentTypeList, { description: 'Content types of a project, newest first (cursor pagination).' })
  async contentTypes(@Args() scope: ProjectScopeArgs, @Args() page: CursorArgs, @Ctx() ctx: Context) {
    await authorizeClientRead(ctx, scope, 'contentTypes');
    return this.service.list(ctx.em, scope, page);
  }

  @Query(() => ContentType, { description: 'One content type.' })
  async contentType(@Args() scope: ProjectScopeArgs, @Arg('id', () => ID, { description: 'The content type.' }) id: string, @Ctx() ctx: Context) {
    await authorizeClientRead(ctx, scope, 'contentTypes');
    return this.service.get(ctx.em, scope, id);
  }

  @Mutation(() => ContentType, { description: 'Creates a content type in `draft`.' })
  async createContentType(@Args() scope: ProjectScopeArgs, @Arg('input', { description: 'The request body (REST: the JSON body).' }) input: CreateContentTypeInput, @Ctx() ctx: Context) {
    const user = await authorizeProject(ctx, scope, 'contentTypes', 'create');
    return this.service.create(ctx.em, scope, input, user.userId);
  }

  @Mutation(() => ContentType, { description: 'Changes the members given; a published type becomes `modified`.' })
  async updateContentType(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, { description: 'The content type.' }) id: string,
    @Arg('input', { description: 'The request body (REST: the JSON body).' }) input: UpdateContentTypeInput,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'contentTypes', 'update');
    return this.service.update(ctx.em, scope, id, input, user.userId);
  }

  @FieldResolver(() => UserReference, { description: 'The user who created the type.' })
  createdBy(@Root() type: ContentType): UserReference {
    return userRef(type.createdById);
  }
}
