// Inputs of project operations.
import { Field, InputType } from 'type-graphql';

@InputType({ description: 'A new project.' })
export class CreateProjectInput {
  @Field({ description: 'Display name.' })
  name!: string;

  @Field({ nullable: true, description: 'Free-form description.' })
  description?: string;
}

@InputType({ description: 'Changes to a project: only the members given change.' })
export class UpdateProjectInput {
  @Field({ nullable: true, description: 'Display name.' })
  name?: string;

  @Field({ nullable: true, description: 'Free-form description.' })
  description?: string;
}
