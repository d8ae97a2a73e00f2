// The fields every version type derives rather than stores: `status` (always published) and `createdBy`.
import { FieldResolver, Resolver, Root, type ClassType } from 'type-graphql';
import { UserReference, userRef } from './user-reference';

/** A resolver adding `status` and `createdBy` to a version type. */
export function VersionFieldsResolver<T extends { createdById: string }>(type: ClassType<T>) {
  @Resolver(() => type)
  class VersionFields {
    @FieldResolver(() => String, { description: 'Always `published`: a version exists only once published.' })
    status(): string {
      return 'published';
    }

    @FieldResolver(() => UserReference, { description: 'The user who published this version.' })
    createdBy(@Root('createdById') createdById: string): UserReference {
      return userRef(createdById);
    }
  }
  return VersionFields;
}
