// The `User` entity as this subgraph sees it: a key only; the access subgraph resolves the rest.
import { Directive, Field, ID, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A user of the organization (resolved by the access subgraph).' })
@Directive('@key(fields: "id", resolvable: false)')
export class User {
  @Field(() => ID, { description: 'Identifier.' })
  id!: string;
}

export const userRef = (id: string): User => ({ id });
