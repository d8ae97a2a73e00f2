// `revision` written once: the bases of the nine resources that take `If-Match` / `expectedRevision`.
import { Property, type Opt } from '@mikro-orm/core';
import { Field, Int, ObjectType } from 'type-graphql';
import { ProjectScopedEntity } from './project-scoped.entity';

/** MikroORM's versioned UPDATE grows the column by one per change; GraphQL shows it as `revision: Int!`. */
function Revision() {
  const description = 'Grows by one with every change; send it back as `If-Match` or `expectedRevision`.';
  return (target: object, key: string) => {
    Field(() => Int, { description })(target, key);
    Property({ version: true, default: 1 })(target, key);
  };
}

@ObjectType({ description: 'Base of revisioned records outside projects; never exposed on its own.' })
export abstract class RevisionedEntity {
  @Revision()
  revision!: number & Opt;
}

/** Project-scoped and revisioned: `revision` follows the project-scoped members (their order in the schema). */
@ObjectType({ description: 'Base of revisioned project-scoped records; never exposed on its own.' })
export abstract class RevisionedProjectEntity extends ProjectScopedEntity {
  @Revision()
  revision!: number & Opt;
}
