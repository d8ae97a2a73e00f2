// Inputs of asset operations (upload itself is multipart, see asset.http.ts).
import { CursorArgs, JSONObjectScalar } from '@cp/graphql';
import { ArgsType, Field, ID, InputType } from 'type-graphql';

@InputType({ description: 'Changes to an asset: only the members given change; the bytes never change.' })
export class UpdateAssetInput {
  @Field({ nullable: true, description: 'File name shown in the CDN address and downloads.' })
  name?: string;

  @Field(() => [String], { nullable: true, description: 'Tag names (replaces the list).' })
  tags?: string[];

  @Field(() => ID, { nullable: true, description: 'Folder placement; null moves the asset to unfiled.' })
  folderId?: string | null;

  @Field(() => JSONObjectScalar, { nullable: true, description: 'Free-form metadata (replaces the object).' })
  metadata?: Record<string, unknown>;
}

@ArgsType()
export class AssetListArgs extends CursorArgs {
  @Field({ nullable: true, description: 'Only assets carrying this tag.' })
  tag?: string;

  @Field(() => String, { nullable: true, description: 'Only assets in this folder; `null` selects unfiled assets.' })
  folderId?: string;

  @Field({ nullable: true, description: 'Only assets of this media type, or of a family such as `image/*`.' })
  type?: string;
}
