// GraphQL surface of bulk actions on content entries; REST routes are derived from these fields (see routes.ts).
import { authorizeProject, JSONObjectScalar, ProjectScopeArgs, type Context } from '@cp/graphql';
import { Arg, Args, Ctx, Field, ID, Int, Mutation, ObjectType, Resolver } from 'type-graphql';
import { BulkContentInput } from './bulk.inputs';
import { BULK_PERMISSION, BulkContentService } from './bulk.service';

@ObjectType({ description: 'The error an entry’s own request would have answered.' })
class BulkItemError {
  @Field({ description: 'Error code, e.g. `INVALID_STATUS_TRANSITION` or `NOT_FOUND`.' })
  code!: string;

  @Field({ description: 'Human-readable message.' })
  message!: string;

  @Field(() => JSONObjectScalar, { nullable: true, description: 'Structured details, as in the error envelope.' })
  details?: Record<string, unknown>;
}

@ObjectType({ description: 'What happened to one entry of a bulk action.' })
class BulkItemResult {
  @Field(() => ID, { description: 'The entry.' })
  id!: string;

  @Field(() => Int, { description: 'The HTTP status the entry’s own request would have had (200 when applied).' })
  status!: number;

  @Field(() => BulkItemError, { nullable: true, description: 'Why the entry was refused; null when applied.' })
  error?: BulkItemError;
}

@ObjectType({ description: 'The outcome of a bulk action, one result per id, in the order given.' })
class BulkContentResult {
  @Field(() => [BulkItemResult], { description: 'One result per id, in the order given.' })
  results!: BulkItemResult[];
}

@Resolver()
export class BulkContentResolver {
  constructor(private readonly service: BulkContentService) {}

  @Mutation(() => BulkContentResult, {
    description:
      'Applies one action to each of 1–100 entries, each on its own with its usual rules, versions and events; one entry’s refusal doesn’t stop the others.',
  })
  async bulkContent(
    @Args() scope: ProjectScopeArgs,
    @Arg('input', { description: 'The request body (REST: the JSON body).' }) input: BulkContentInput,
    @Ctx() ctx: Context,
  ): Promise<BulkContentResult> {
    const bulk = this.service.validate(input);
    const user = await authorizeProject(ctx, scope, 'content', BULK_PERMISSION[bulk.action]);
    return { results: await this.service.run(ctx.em, scope, bulk, user.userId) };
  }
}
