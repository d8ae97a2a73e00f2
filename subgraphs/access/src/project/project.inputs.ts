// Inputs of project operations.
import { Field, InputType } from 'type-graphql';
import { ProjectLocaleInput } from './project-locale';

const LOCALES =
  'The locales, exactly one of them the default (without a fallback); when unset `[{code: "en", default: true}]`. Changing them never rewrites content: a removed locale’s values stop being served.';

@InputType({ description: 'A new project.' })
export class CreateProjectInput {
  @Field({ description: 'Display name.' })
  name!: string;

  @Field({ nullable: true, description: 'Free-form description.' })
  description?: string;

  @Field(() => [ProjectLocaleInput], { nullable: true, description: LOCALES })
  locales?: ProjectLocaleInput[];
}

@InputType({ description: 'Changes to a project: only the members given change.' })
export class UpdateProjectInput {
  @Field({ nullable: true, description: 'Display name.' })
  name?: string;

  @Field({ nullable: true, description: 'Free-form description.' })
  description?: string;

  @Field(() => [ProjectLocaleInput], { nullable: true, description: LOCALES })
  locales?: ProjectLocaleInput[];
}
