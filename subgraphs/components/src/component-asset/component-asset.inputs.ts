// Inputs of component asset operations.
import { Field, InputType } from 'type-graphql';

@InputType({ description: 'The status to move a component asset to: `active` or `deleted`.' })
export class ComponentAssetStatusInput {
  @Field({ description: '`active` or `deleted`; other values give INVALID_STATUS.' })
  status!: string;
}
