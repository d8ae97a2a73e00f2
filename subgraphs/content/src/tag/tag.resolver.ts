// GraphQL surface of tags: offset list with name search, CRUD; unknown names on entries create tags. Published
// keys see the tags published entries carry.
import {
  authorizeClientRead,
  authorizeProject,
  OffsetArgs,
  OffsetList,
  ProjectScopeArgs,
  type Context,
  ExpectedRevisionArgs,
  type Visibility,
} from '@cp/graphql';
import { raw, type FilterQuery } from '@mikro-orm/postgresql';
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

/**
 * What a published key sees of tags: those some published entry carries (the published projection's `tags`, GIN
 * indexed). A tag only drafts, working copies or nothing carry is working state; preview keys and admins see all.
 * Made per query: MikroORM consumes a raw fragment when it builds the query that uses it.
 */
const carriedByPublishedContent = () =>
  ({
    [raw(
      (alias) =>
        `exists (select 1 from "published_content" p where p."project_id" = ${alias}."project_id" and p."tags" @> jsonb_build_array(${alias}."name"))`,
    )]: true,
  }) as FilterQuery<Tag>;
const visibleTo = (visibility: Visibility) => (visibility === 'published' ? carriedByPublishedContent() : undefined);

/** Unknown names on entries and assets create tags; shared with the assets subgraph. */
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
    const { visibility } = await authorizeClientRead(ctx, scope, 'content');
    return tags.list(ctx.em, scope, page, search, visibleTo(visibility));
  }

  @Query(() => Tag, { description: 'One tag.' })
  async tag(@Args() scope: ProjectScopeArgs, @Arg('id', () => ID, idArg) id: string, @Ctx() ctx: Context) {
    const { visibility } = await authorizeClientRead(ctx, scope, 'content');
    return tags.get(ctx.em, scope, id, false, visibleTo(visibility));
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
