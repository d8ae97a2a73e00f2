// GraphQL surface of saved searches: CRUD for admins; list, get and execute for API keys (published content only).
import {
  authorizeClientRead,
  authorizeProject,
  OffsetList,
  OffsetArgs,
  ProjectScopeArgs,
  selects,
  type Context,
  UserReference,
  userRef,
  ExpectedRevisionArgs,
} from '@cp/graphql';
import type { GraphQLResolveInfo } from 'graphql';
import {
  Arg,
  Args,
  Ctx,
  Field,
  FieldResolver,
  ID,
  Info,
  InputType,
  Int,
  Mutation,
  Query,
  Resolver,
  Root,
} from 'type-graphql';
import { JSONObjectScalar } from '@cp/graphql';
import { assertSearchBody } from '../content/content-query';
import { Content } from '../content/content.entity';
import { ContentService } from '../content/content.service';
import { NamedResources } from '../shared/named-resources';
import { SavedSearch } from './saved-search.entity';
import { requestLocale } from '../content/content-locales';

const SavedSearchList = OffsetList(SavedSearch, 'SavedSearchList');
const SavedSearchResult = OffsetList(Content, 'SavedSearchResult');
const idArg = { description: 'The saved search.' };
const body = { description: 'The request body (REST: the JSON body).' };

@InputType({ description: 'A saved search, or changes to one (only the members given change).' })
class SavedSearchInput {
  @Field({ nullable: true, description: 'Name, unique in the project (required on create).' })
  name?: string;

  @Field(() => String, { nullable: true, description: 'What the search is for.' })
  description?: string | null;

  @Field(() => JSONObjectScalar, {
    nullable: true,
    description: 'A `searchContent` body plus optional `search` and `query` strings (required on create).',
  })
  query?: Record<string, unknown>;
}

@InputType({ description: 'Which page of the results to return.' })
class ExecuteInput {
  @Field(() => Int, { nullable: true, description: 'Page, 1-based (default 1).' })
  page?: number;

  @Field(() => Int, { nullable: true, description: 'Items per page, 1 to 100 (default: the saved `limit`, else 20).' })
  limit?: number;
}

const searches = new NamedResources(SavedSearch, 'saved-searches', 'SavedSearch');

/** Refuses a query the search would refuse at execution time (400 naming the member). */
function checked(query: Record<string, unknown> | undefined): Record<string, unknown> {
  const q = query ?? {};
  assertSearchBody(q);
  return q;
}

@Resolver(() => SavedSearch)
export class SavedSearchResolver {
  constructor(private readonly content: ContentService) {}

  @Query(() => SavedSearchList, { description: 'Saved searches of a project by name (offset pagination).' })
  async savedSearches(@Args() scope: ProjectScopeArgs, @Args() page: OffsetArgs, @Ctx() ctx: Context) {
    await authorizeClientRead(ctx, scope, 'content');
    return searches.list(ctx.em, scope, page);
  }

  @Query(() => SavedSearch, { description: 'One saved search.' })
  async savedSearch(@Args() scope: ProjectScopeArgs, @Arg('id', () => ID, idArg) id: string, @Ctx() ctx: Context) {
    await authorizeClientRead(ctx, scope, 'content');
    return searches.get(ctx.em, scope, id);
  }

  @Mutation(() => SavedSearch, { description: 'Saves a search.' })
  async createSavedSearch(
    @Args() scope: ProjectScopeArgs,
    @Arg('input', body) input: SavedSearchInput,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'content', 'update');
    return searches.create(
      ctx.em,
      scope,
      {
        name: input.name ?? '',
        description: input.description ?? null,
        query: checked(input.query),
        createdById: user.userId,
      },
      user.userId,
    );
  }

  @Mutation(() => SavedSearch, { description: 'Changes the members given.' })
  async updateSavedSearch(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Arg('input', body) input: SavedSearchInput,
    @Args() _revision: ExpectedRevisionArgs,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'content', 'update');
    return searches.update(ctx.em, scope, id, input.name, user.userId, (_tx, saved) => {
      if (input.description !== undefined) saved.description = input.description;
      if (input.query !== undefined) saved.query = checked(input.query);
    });
  }

  @Mutation(() => SavedSearch, { description: 'Deletes a saved search.' })
  async deleteSavedSearch(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Args() _revision: ExpectedRevisionArgs,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'content', 'update');
    return searches.delete(ctx.em, scope, id, user.userId);
  }

  @Query(() => SavedSearchResult, { description: 'Runs a saved search; API keys get published content only.' })
  async executeSavedSearch(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Arg('input', () => ExecuteInput, { nullable: true, ...body }) input: ExecuteInput | undefined,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ) {
    const { visibility } = await authorizeClientRead(ctx, scope, 'content');
    const saved = await searches.get(ctx.em, scope, id);
    const query = {
      ...saved.query,
      page: input?.page ?? 1,
      limit: input?.limit ?? (saved.query.limit as number | undefined),
    };
    // A stored body runs in the project's default locale.
    const locale = await requestLocale(ctx, scope);
    const compiled = selects(info, ['data', 'compiled']);
    return this.content.search(ctx.em, scope, query, { visibility, compiled, locale });
  }

  @FieldResolver(() => UserReference, { description: 'The user who saved the search.' })
  createdBy(@Root('createdById') createdById: string): UserReference {
    return userRef(createdById);
  }
}
