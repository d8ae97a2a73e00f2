// GraphQL surface of projects.
import { authorizeOrganization, OffsetArgs, OffsetList, type Context } from '@cp/graphql';
import { Arg, Args, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { authorizeOrganizationAdmin } from '../shared/authorize-admin';
import { Project } from './project.entity';
import { CreateProjectInput, UpdateProjectInput } from './project.inputs';
import { ProjectService } from './project.service';

const ProjectList = OffsetList(Project, 'ProjectList');

@Resolver(() => Project)
export class ProjectResolver {
  private readonly service = new ProjectService();

  @Query(() => ProjectList, { description: 'Projects of an organization (a project-scoped token sees its own only).' })
  projects(
    @Arg('organizationId', () => ID, { description: 'The organization.' }) organizationId: string,
    @Args() page: OffsetArgs,
    @Ctx() ctx: Context,
  ) {
    return this.service.list(ctx.em, authorizeOrganization(ctx, organizationId, 'projects', 'read'), page);
  }

  @Query(() => Project, { description: 'One project.' })
  project(
    @Arg('organizationId', () => ID, { description: 'The organization.' }) organizationId: string,
    @Arg('id', () => ID, { description: 'The project.' }) id: string,
    @Ctx() ctx: Context,
  ) {
    return this.service.get(ctx.em, authorizeOrganization(ctx, organizationId, 'projects', 'read'), id);
  }

  @Mutation(() => Project, { description: 'Creates a project in the organization.' })
  createProject(
    @Arg('organizationId', () => ID, { description: 'The organization.' }) organizationId: string,
    @Arg('input', { description: 'The request body (REST: the JSON body).' }) input: CreateProjectInput,
    @Ctx() ctx: Context,
  ) {
    const user = authorizeOrganizationAdmin(ctx, organizationId, 'projects', 'create');
    return this.service.create(ctx.em, organizationId, input, user.userId);
  }

  @Mutation(() => Project, { description: 'Changes the members given.' })
  updateProject(
    @Arg('organizationId', () => ID, { description: 'The organization.' }) organizationId: string,
    @Arg('id', () => ID, { description: 'The project.' }) id: string,
    @Arg('input', { description: 'The request body (REST: the JSON body).' }) input: UpdateProjectInput,
    @Ctx() ctx: Context,
  ) {
    return this.service.update(ctx.em, authorizeOrganization(ctx, organizationId, 'projects', 'update'), id, input);
  }

  @Mutation(() => Project, {
    description: 'Deletes the project (its resources become unreachable, its API keys are revoked).',
  })
  deleteProject(
    @Arg('organizationId', () => ID, { description: 'The organization.' }) organizationId: string,
    @Arg('id', () => ID, { description: 'The project.' }) id: string,
    @Ctx() ctx: Context,
  ) {
    return this.service.delete(ctx.em, authorizeOrganizationAdmin(ctx, organizationId, 'projects', 'delete'), id);
  }
}
