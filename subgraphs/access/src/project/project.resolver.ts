// GraphQL surface of projects.
import { authorizeOrganization, OffsetArgs, OffsetList, type Context } from '@cp/graphql';
import { Arg, Args, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { Project } from './project.entity';
import { CreateProjectInput } from './project.inputs';
import { ProjectService } from './project.service';

const ProjectList = OffsetList(Project, 'ProjectList');

@Resolver(() => Project)
export class ProjectResolver {
  private readonly service = new ProjectService();

  @Query(() => ProjectList, { description: 'Projects of an organization.' })
  projects(@Arg('organizationId', () => ID) organizationId: string, @Args() page: OffsetArgs, @Ctx() ctx: Context) {
    authorizeOrganization(ctx, organizationId, 'projects', 'read');
    return this.service.list(ctx.em, organizationId, page);
  }

  @Query(() => Project, { description: 'One project.' })
  project(@Arg('organizationId', () => ID) organizationId: string, @Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    authorizeOrganization(ctx, organizationId, 'projects', 'read');
    return this.service.get(ctx.em, organizationId, id);
  }

  @Mutation(() => Project, { description: 'Creates a project in the organization.' })
  createProject(
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('input') input: CreateProjectInput,
    @Ctx() ctx: Context,
  ) {
    const user = authorizeOrganization(ctx, organizationId, 'projects', 'create');
    return this.service.create(ctx.em, organizationId, input, user.userId);
  }
}
