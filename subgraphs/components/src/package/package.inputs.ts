// Inputs and payloads of package operations.
import { Field, InputType, ObjectType } from 'type-graphql';
import { JSONObjectScalar } from '@cp/graphql';
import { Package, PackageComponent } from './package.entity';

@InputType({ description: 'Publishes every draft and modified component as a new package.' })
export class CreatePackageInput {
  @Field({ nullable: true, description: 'What changed.' })
  description?: string;
}

@ObjectType({ description: 'A component of a resolved package, with the code and schema of its pinned version.' })
export class ResolvedComponent extends PackageComponent {
  @Field({ description: '`view` or `layout`.' })
  type!: string;

  @Field(() => String, { nullable: true, description: 'Title from `metadata()`.' })
  title?: string | null;

  @Field(() => String, { nullable: true, description: 'Description from `metadata()`.' })
  description?: string | null;

  @Field({ description: 'Compiled ES module.' })
  compiled!: string;

  @Field(() => JSONObjectScalar, { description: 'Props JSON Schema.' })
  schema!: Record<string, unknown>;
}

@ObjectType({ description: 'A package with every component’s compiled code and schema.' })
export class ResolvedPackage extends Package {
  @Field(() => [ResolvedComponent], { description: 'The pinned components, with code and schema.' })
  override components!: ResolvedComponent[];
}
