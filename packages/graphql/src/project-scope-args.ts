// The organization and project arguments of every project-scoped operation.
import type { ProjectScope } from '@cp/principal';
import { ArgsType, Field, ID } from 'type-graphql';

@ArgsType()
export class ProjectScopeArgs implements ProjectScope {
  @Field(() => ID, { description: 'The organization.' })
  organizationId!: string;

  @Field(() => ID, { description: 'The project.' })
  projectId!: string;
}
