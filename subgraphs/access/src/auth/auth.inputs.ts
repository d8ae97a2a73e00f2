// Inputs and payloads of sign-in.
import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { User } from '../user/user.entity';

@InputType({ description: 'Credentials of an administrator.' })
export class LoginInput {
  @Field({ description: 'Sign-in email address.' })
  email!: string;

  @Field({ description: 'Password.' })
  password!: string;
}

@ObjectType({ description: 'A signed-in session: send `token` as `Authorization: Bearer <token>`.' })
export class LoginResult {
  @Field({ description: 'The JWT.' })
  token!: string;

  @Field({ description: 'When the token stops working.' })
  expiresAt!: Date;

  @Field(() => User, { description: 'The signed-in user.' })
  user!: User;
}

@InputType({
  description: 'A token for automation: limited to one project and an expiry, never wider than the caller.',
})
export class IssueTokenInput {
  @Field(() => ID, {
    nullable: true,
    description:
      'Limit the token to this project (required when the caller’s own token is project-scoped: the same one).',
  })
  projectId?: string;

  @Field(() => Int, {
    nullable: true,
    description: 'Lifetime in seconds; at most what remains of the caller’s own token (the default).',
  })
  expiresIn?: number;
}

@ObjectType({ description: 'An issued token: send it as `Authorization: Bearer <token>`.' })
export class IssuedToken {
  @Field({ description: 'The JWT.' })
  token!: string;

  @Field({ description: 'When the token stops working.' })
  expiresAt!: Date;

  @Field(() => ID, { nullable: true, description: 'The one project the token works for, if limited.' })
  projectId?: string;
}
