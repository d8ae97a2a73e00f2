// Sign-in for the access module's GraphQL surface: finds the user (its entity) and calls into `@cp/auth`'s sign-in.
import type { SignIn } from '@cp/auth';
import type { ProjectDirectory, UserPrincipal } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { IssueTokenInput } from './auth.inputs';
import { User } from '../user/user.entity';

export class AuthService {
  /** The host's sign-in (`Authentication.signIn`): failed attempts counted in its shared store. */
  constructor(private readonly signIn: SignIn) {}

  /** The same answer for an unknown email and a wrong password, at the same cost. */
  async login(em: EntityManager, email: string, password: string) {
    const { token, expiresAt, account } = await this.signIn.login(email, password, (normalized) =>
      em.findOne(User, { email: normalized }, { populate: ['passwordHash'] }),
    );
    return { token, expiresAt, user: account };
  }

  /** A narrower token for the caller. */
  issueToken(caller: UserPrincipal, input: IssueTokenInput, projects: ProjectDirectory) {
    return this.signIn.issueToken(caller, input, projects);
  }
}
