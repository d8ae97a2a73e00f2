// The `User` entity as non-owning subgraphs see it: a key only; the access subgraph resolves the rest.
import { Directive, Field, ID, ObjectType } from 'type-graphql';

@ObjectType('User', { description: 'A user of the organization (resolved by the access subgraph).' })
@Directive('@key(fields: "id", resolvable: false)')
export class UserReference {
  @Field(() => ID, { description: 'Identifier.' })
  id!: string;
}

export const userRef = (id: string): UserReference => ({ id });
