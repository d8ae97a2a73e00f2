// GraphQL surface of packages.
import {
  authorizeClientRead,
  authorizeProject,
  CursorArgs,
  CursorList,
  ProjectScopeArgs,
  type Context,
  UserReference,
  userRef,
} from '@cp/graphql';
import { Arg, Args, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Package } from './package.entity';
import { CreatePackageInput, ResolvedPackage } from './package.inputs';
import { PackageService } from './package.service';

const PackageList = CursorList(Package, 'PackageList');
const versionArg = { description: 'Semantic version, e.g. `1.2.0`.' };

@Resolver(() => Package)
export class PackageResolver {
  private readonly service = new PackageService();

  @Query(() => PackageList, { description: 'Packages of a project, newest first (cursor pagination).' })
  async packages(@Args() scope: ProjectScopeArgs, @Args() page: CursorArgs, @Ctx() ctx: Context) {
    await authorizeClientRead(ctx, scope, 'packages');
    return this.service.list(ctx.em, scope, page);
  }

  @Query(() => Package, { description: 'One package by version.' })
  async package(@Args() scope: ProjectScopeArgs, @Arg('version', versionArg) version: string, @Ctx() ctx: Context) {
    await authorizeClientRead(ctx, scope, 'packages');
    return this.service.get(ctx.em, scope, version);
  }

  @Query(() => ResolvedPackage, { description: 'A package with each component’s compiled code and schema.' })
  async resolvedPackage(
    @Args() scope: ProjectScopeArgs,
    @Arg('version', versionArg) version: string,
    @Ctx() ctx: Context,
  ) {
    await authorizeClientRead(ctx, scope, 'packages');
    return this.service.resolved(ctx.em, scope, version);
  }

  @Mutation(() => Package, {
    description:
      'Publishes every draft and modified component as the next package version; NOTHING_TO_PUBLISH when none.',
  })
  async createPackage(
    @Args() scope: ProjectScopeArgs,
    @Arg('input', { nullable: true, description: 'The request body (REST: the JSON body).' }) input: CreatePackageInput,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'packages', 'create');
    return this.service.create(ctx.em, scope, input?.description, user.userId);
  }

  @FieldResolver(() => UserReference, { description: 'The user who published the package.' })
  createdBy(@Root('createdById') createdById: string): UserReference {
    return userRef(createdById);
  }
}

@Resolver(() => ResolvedPackage)
export class ResolvedPackageResolver {
  @FieldResolver(() => UserReference, { description: 'The user who published the package.' })
  createdBy(@Root('createdById') createdById: string): UserReference {
    return userRef(createdById);
  }
}
