// The `Asset` entity as the content subgraph sees it: a key only; the assets subgraph resolves the rest.
import { Directive, Field, ID, ObjectType } from 'type-graphql';

@ObjectType('Asset', { description: 'A file of the project (resolved by the assets subgraph).' })
@Directive('@key(fields: "id", resolvable: false)')
export class AssetReference {
  @Field(() => ID, { description: 'Identifier.' })
  id!: string;
}
