// Inputs of API key operations.
import { Field, InputType } from 'type-graphql';

@InputType({ description: 'A new API key.' })
export class CreateApiKeyInput {
  @Field({ description: 'Descriptive name.' })
  name!: string;

  @Field({ nullable: true, description: 'What the key is used for.' })
  description?: string;
}
