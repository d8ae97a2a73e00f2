// GraphQL surface of API keys (admin only: keys cannot manage keys).
import {
  authorizeProject,
  OffsetArgs,
  OffsetList,
  ProjectScopeArgs,
  type Context,
  ExpectedRevisionArgs,
} from '@cp/graphql';
import { Arg, Args, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { ApiKey, CreatedApiKey } from './api-key.entity';
import { CreateApiKeyInput } from './api-key.inputs';
import type { ApiKeyService } from './api-key.service';

const ApiKeyList = OffsetList(ApiKey, 'ApiKeyList');

@Resolver(() => ApiKey)
export class ApiKeyResolver {
  constructor(private readonly service: ApiKeyService) {}

  @Query(() => ApiKeyList, { description: 'API keys of a project (offset pagination); values are never shown.' })
  async apiKeys(@Args() scope: ProjectScopeArgs, @Args() page: OffsetArgs, @Ctx() ctx: Context) {
    await authorizeProject(ctx, scope, 'apiKeys', 'read');
    return this.service.list(ctx.em, scope, page);
  }

  @Query(() => ApiKey, { description: 'One API key; its value is never shown.' })
  async apiKey(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, { description: 'The api key.' }) id: string,
    @Ctx() ctx: Context,
  ) {
    await authorizeProject(ctx, scope, 'apiKeys', 'read');
    return this.service.get(ctx.em, scope, id);
  }

  @Mutation(() => CreatedApiKey, {
    description: 'Creates an API key; the response is the only place its value appears.',
  })
  async createApiKey(
    @Args() scope: ProjectScopeArgs,
    @Arg('input', { description: 'The request body (REST: the JSON body).' }) input: CreateApiKeyInput,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'apiKeys', 'create');
    return this.service.create(ctx.em, scope, input, user.userId);
  }

  @Mutation(() => ApiKey, { description: 'Revokes an API key: the next request with it is refused (UNAUTHORIZED).' })
  async revokeApiKey(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, { description: 'The api key.' }) id: string,
    @Args() _revision: ExpectedRevisionArgs,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'apiKeys', 'update');
    return this.service.revoke(ctx.em, scope, id, user.userId);
  }
}
