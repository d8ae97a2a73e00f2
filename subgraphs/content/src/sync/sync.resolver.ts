// GraphQL surface of sync (REST: `GET …/sync` under /api/v1, see routes.ts).
import { ALL_LOCALES, authorizeClientRead, ProjectScopeArgs, selects, type Context } from '@cp/graphql';
import { requestLocale } from '../content/content-locales';
import type { GraphQLResolveInfo } from 'graphql';
import { Args, Ctx, Info, Query, Resolver } from 'type-graphql';
import { SyncArgs, SyncPage } from './sync.inputs';
import { SyncService } from './sync.service';

@Resolver()
export class SyncResolver {
  constructor(private readonly service: SyncService) {}

  @Query(() => SyncPage, {
    description:
      'Keeps a copy of the project’s content: `initial: true` answers a snapshot page by page, then `syncToken` what changed since. API keys sync published entries, preview keys working copies, staff the published entries.',
  })
  async sync(
    @Args() scope: ProjectScopeArgs,
    @Args() args: SyncArgs,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ) {
    const { visibility } = await authorizeClientRead(ctx, scope, 'content');
    // Staff sync what clients are served, as they resolve it.
    const view = visibility === 'preview' ? 'preview' : 'published';
    // A copy keeps every locale's values (`*`); the client resolves fallbacks with the project's `locales`.
    const locale = await requestLocale(ctx, scope, ALL_LOCALES);
    return this.service.page(ctx.em, scope, view, args, { compiled: selects(info, ['items', 'compiled']), locale });
  }
}
