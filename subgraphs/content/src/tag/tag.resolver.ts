// GraphQL surface of tags (D12): offset list with name search, CRUD; unknown names on entries create tags.
import {
  authorizeClientRead,
  authorizeProject,
  OffsetArgs,
  OffsetList,
  ProjectScopeArgs,
  type Context,
  ExpectedRevisionArgs,
} from '@cp/graphql';
import { Arg, Args, Ctx, Field, ID, InputType, Mutation, Query, Resolver } from 'type-graphql';
import { NamedResources } from '../shared/named-resources';
import { Tag } from './tag.entity';

const TagList = OffsetList(Tag, 'TagList');
const idArg = { description: 'The tag.' };
const body = { description: 'The request body (REST: the JSON body).' };

@InputType({ description: 'A tag, or changes to one (only the members given change).' })
class TagInput {
  @Field({ nullable: true, description: 'Name, unique in the project (required on create).' })
  name?: string;

  @Field(() => String, { nullable: true, description: 'Display color.' })
  color?: string | null;
}

export const tags = new NamedResources(Tag, 'tags', 'Tag');

/** Unknown names on entries and assets create tags (D12); shared with the assets subgraph. */
export { ensureTags } from '@cp/db';

@Resolver(() => Tag)
export class TagResolver {
  @Query(() => TagList, { description: 'Tags of a project by name (offset pagination).' })
  async tags(
    @Args() scope: ProjectScopeArgs,
    @Args() page: OffsetArgs,
    @Arg('search', () => String, { nullable: true, description: 'Part of the name.' }) search: string | undefined,
    @Ctx() ctx: Context,
  ) {
    await authorizeClientRead(ctx, scope, 'content');
    return tags.list(ctx.em, scope, page, search);
  }

  @Query(() => Tag, { description: 'One tag.' })
  async tag(@Args() scope: ProjectScopeArgs, @Arg('id', () => ID, idArg) id: string, @Ctx() ctx: Context) {
    await authorizeClientRead(ctx, scope, 'content');
    return tags.get(ctx.em, scope, id);
  }

  @Mutation(() => Tag, { description: 'Creates a tag.' })
  async createTag(@Args() scope: ProjectScopeArgs, @Arg('input', body) input: TagInput, @Ctx() ctx: Context) {
    const user = await authorizeProject(ctx, scope, 'content', 'update');
    return tags.create(ctx.em, scope, { name: input.name ?? '', color: input.color ?? null }, user.userId);
  }

  @Mutation(() => Tag, { description: 'Renames or recolors a tag (entries keep the names they carry).' })
  async updateTag(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Arg('input', body) input: TagInput,
    @Args() _revision: ExpectedRevisionArgs,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'content', 'update');
    return tags.update(ctx.em, scope, id, input.name, user.userId, (_tx, tag) => {
      if (input.color !== undefined) tag.color = input.color;
    });
  }

  @Mutation(() => Tag, { description: 'Deletes a tag.' })
  async deleteTag(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Args() _revision: ExpectedRevisionArgs,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'content', 'update');
    return tags.delete(ctx.em, scope, id, user.userId);
  }
}
