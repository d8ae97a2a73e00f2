// Inputs of organization operations.
import { Field, InputType } from 'type-graphql';

@InputType({ description: 'Changes to an organization.' })
export class UpdateOrganizationInput {
  @Field({ nullable: true, description: 'Display name.' })
  name?: string;
}
