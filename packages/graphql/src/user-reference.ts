// The `User` entity as non-owning subgraphs see it: a key only; the access subgraph resolves the rest.
import { Directive, Field, ID, ObjectType } from 'type-graphql';

@ObjectType('User', { description: 'A user of the organization (resolved by the access subgraph).' })
@Directive('@key(fields: "id", resolvable: false)')
export class UserReference {
  @Field(() => ID, { description: 'Identifier.' })
  id!: string;
}

/**
 * Field resolvers take `@Root('createdById') createdById: string`, not `@Root() row: Entity`: type-graphql turns a root
 * that is not an instance of the declared class into one (a new entity per list item, MikroORM's property setters and
 * all), which plain rows and published views always are.
 */
export const userRef = (id: string): UserReference => ({ id });
