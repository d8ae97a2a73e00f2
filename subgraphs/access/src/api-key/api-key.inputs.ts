// Inputs of API key operations.
import { Field, InputType } from 'type-graphql';
import { ApiKeyScope } from './api-key.entity';

@InputType({ description: 'A new API key.' })
export class CreateApiKeyInput {
  @Field({ description: 'Descriptive name.' })
  name!: string;

  @Field({ nullable: true, description: 'What the key is used for.' })
  description?: string;

  @Field(() => ApiKeyScope, {
    nullable: true,
    description: '`published` (default) or `preview`: reads drafts and working copies.',
  })
  scope?: ApiKeyScope;
}
