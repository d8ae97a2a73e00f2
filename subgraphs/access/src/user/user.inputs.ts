// Inputs of user operations.
import { Field, ID, InputType } from 'type-graphql';

@InputType({ description: 'A new administrator of the organization.' })
export class CreateUserInput {
  @Field({ description: 'Sign-in email address, unique across the service.' })
  email!: string;

  @Field({ description: 'Display name.' })
  name!: string;

  @Field({ description: 'Initial password (at least 8 characters).' })
  password!: string;

  @Field(() => ID, { description: 'The role to give; it may not hold flags the caller lacks.' })
  roleId!: string;
}

@InputType({ description: 'Changes to a user: only the members given change.' })
export class UpdateUserInput {
  @Field({ nullable: true, description: 'Sign-in email address.' })
  email?: string;

  @Field({ nullable: true, description: 'Display name.' })
  name?: string;

  @Field({ nullable: true, description: 'New password; every token issued before the change stops working.' })
  password?: string;

  @Field(() => ID, { nullable: true, description: 'Another role; it may not hold flags the caller lacks.' })
  roleId?: string;
}
