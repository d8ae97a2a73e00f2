// GraphQL surface of sign-in: `login`, `issueToken` and `me`.
import { UnauthorizedError } from '@cp/errors';
import type { Context } from '@cp/graphql';
import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { User } from '../user/user.entity';
import { IssuedToken, IssueTokenInput, LoginInput, LoginResult } from './auth.inputs';
import type { AuthService } from './auth.service';

@Resolver()
export class AuthResolver {
  constructor(private readonly auth: AuthService) {}

  @Mutation(() => LoginResult, {
    description: 'Signs in with email and password; wrong credentials give UNAUTHORIZED.',
  })
  login(
    @Arg('input', { description: 'The request body (REST: the JSON body).' }) input: LoginInput,
    @Ctx() ctx: Context,
  ): Promise<LoginResult> {
    return this.auth.login(ctx.em, input.email, input.password);
  }

  @Mutation(() => IssuedToken, {
    description: 'Issues a token limited to one project and/or a shorter expiry, never wider than the caller.',
  })
  issueToken(
    @Arg('input', () => IssueTokenInput, { nullable: true, description: 'The request body (REST: the JSON body).' })
    input: IssueTokenInput | undefined,
    @Ctx() ctx: Context,
  ): Promise<IssuedToken> {
    if (ctx.principal.kind !== 'user') throw new UnauthorizedError();
    return this.auth.issueToken(ctx.principal, input ?? {}, ctx.projects);
  }

  @Query(() => User, { description: 'The signed-in user.' })
  async me(@Ctx() ctx: Context): Promise<User> {
    if (ctx.principal.kind !== 'user') throw new UnauthorizedError();
    return ctx.em.findOneOrFail(User, { id: ctx.principal.userId });
  }
}
