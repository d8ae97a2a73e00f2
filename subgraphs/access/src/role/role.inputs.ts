// Inputs of role operations.
import { JSONObjectScalar } from '@cp/graphql';
import { Field, InputType } from 'type-graphql';

@InputType({ description: 'A new role.' })
export class CreateRoleInput {
  @Field({ description: 'Name, unique in the organization.' })
  name!: string;

  @Field({ nullable: true, description: 'What the role is for.' })
  description?: string;

  @Field(() => JSONObjectScalar, {
    description: 'Resource → flags, exactly as the spec’s Role table; only flags the caller holds.',
  })
  permissions!: Record<string, unknown>;
}

@InputType({ description: 'Changes to a role: only the members given change.' })
export class UpdateRoleInput {
  @Field({ nullable: true, description: 'Name, unique in the organization.' })
  name?: string;

  @Field({ nullable: true, description: 'What the role is for.' })
  description?: string;

  @Field(() => JSONObjectScalar, {
    nullable: true,
    description: 'Resource → flags (replaces the whole map); only flags the caller holds.',
  })
  permissions?: Record<string, unknown>;
}
