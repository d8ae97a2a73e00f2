// Inputs and payloads of sign-in.
import { Field, InputType, ObjectType } from 'type-graphql';
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
