// GraphQL surface of folders: a tree by `parentId`; deleting a non-empty folder needs `recursive`.
import { AppError, ValidationFailedError } from '@cp/errors';
import {
  authorizeProject,
  OffsetArgs,
  OffsetList,
  ProjectScopeArgs,
  type Context,
  type ProjectScope,
  ExpectedRevisionArgs,
} from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { raw } from '@mikro-orm/core';
import { Arg, Args, Ctx, Field, ID, InputType, Mutation, Query, Resolver } from 'type-graphql';
import { Content } from '../content/content.entity';
import { NamedResources } from '../shared/named-resources';
import { Folder } from './folder.entity';

const FolderList = OffsetList(Folder, 'FolderList');
const idArg = { description: 'The folder.' };
const body = { description: 'The request body (REST: the JSON body).' };

@InputType({ description: 'A folder, or changes to one (only the members given change).' })
class FolderInput {
  @Field({ nullable: true, description: 'Name, unique in the project (required on create).' })
  name?: string;

  @Field(() => ID, { nullable: true, description: 'Parent folder; null moves it to the root.' })
  parentId?: string | null;
}

const folders = new NamedResources(Folder, 'folders', 'Folder');

async function parentPath(
  em: EntityManager,
  scope: ProjectScope,
  parentId: string | null | undefined,
): Promise<string> {
  if (!parentId) return '';
  const parent = await em.findOne(Folder, { id: parentId, ...scope });
  if (!parent) throw new ValidationFailedError([{ path: '/parentId', message: 'no such folder' }]);
  return parent.path;
}

/**
 * The folder and every folder below it, following `parentId` links. Not by `path` prefix: names may hold `/`, `%` or
 * `_`, so a root folder named "a/b" or "a_b" would look like it sat below "a" (a recursive delete would take it).
 */
async function subtree(em: EntityManager, scope: ProjectScope, folder: Folder): Promise<Folder[]> {
  const rows: { id: string }[] = await em.getConnection().execute(
    `with recursive below(id) as (
       select ?::text
       union
       select f.id from folder f join below on f.parent_id = below.id where f.organization_id = ? and f.project_id = ?
     ) select id from below`,
    [folder.id, scope.organizationId, scope.projectId],
    'all',
    em.getTransactionContext(),
  );
  return em.find(Folder, { ...scope, id: { $in: rows.map((r) => r.id) } });
}

@Resolver(() => Folder)
export class FolderResolver {
  @Query(() => FolderList, { description: 'Folders of a project by name (offset pagination).' })
  async folders(
    @Args() scope: ProjectScopeArgs,
    @Args() page: OffsetArgs,
    @Arg('search', () => String, { nullable: true, description: 'Part of the name.' }) search: string | undefined,
    @Ctx() ctx: Context,
  ) {
    await authorizeProject(ctx, scope, 'content', 'read');
    return folders.list(ctx.em, scope, page, search);
  }

  @Query(() => Folder, { description: 'One folder.' })
  async folder(@Args() scope: ProjectScopeArgs, @Arg('id', () => ID, idArg) id: string, @Ctx() ctx: Context) {
    await authorizeProject(ctx, scope, 'content', 'read');
    return folders.get(ctx.em, scope, id);
  }

  @Mutation(() => Folder, { description: 'Creates a folder, at the root or under `parentId`.' })
  async createFolder(@Args() scope: ProjectScopeArgs, @Arg('input', body) input: FolderInput, @Ctx() ctx: Context) {
    const user = await authorizeProject(ctx, scope, 'content', 'update');
    const path = `${await parentPath(ctx.em, scope, input.parentId)}/${(input.name ?? '').trim()}`;
    return folders.create(
      ctx.em,
      scope,
      { name: input.name ?? '', parentId: input.parentId ?? null, path },
      user.userId,
    );
  }

  @Mutation(() => Folder, { description: 'Renames or moves a folder; paths below it follow.' })
  async updateFolder(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Arg('input', body) input: FolderInput,
    @Args() _revision: ExpectedRevisionArgs,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'content', 'update');
    return folders.update(ctx.em, scope, id, input.name, user.userId, async (tx, folder) => {
      const below = await subtree(tx, scope, folder);
      if (input.parentId !== undefined) {
        if (input.parentId && below.some((f) => f.id === input.parentId)) {
          throw new ValidationFailedError([
            { path: '/parentId', message: 'a folder cannot move into itself or below itself' },
          ]);
        }
        folder.parentId = input.parentId;
      }
      const oldPath = folder.path;
      folder.path = `${await parentPath(tx, scope, folder.parentId)}/${folder.name}`;
      for (const f of below) if (f !== folder) f.path = folder.path + f.path.slice(oldPath.length);
    });
  }

  @Mutation(() => Folder, {
    description:
      'Deletes a folder; FOLDER_NOT_EMPTY unless `recursive`, which deletes sub-folders and unfiles their content.',
  })
  async deleteFolder(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Arg('recursive', () => Boolean, {
      nullable: true,
      description: 'Also delete sub-folders; their content becomes unfiled.',
    })
    recursive: boolean | undefined,
    @Args() _revision: ExpectedRevisionArgs,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'content', 'update');
    return folders.delete(ctx.em, scope, id, user.userId, async (tx, folder) => {
      const below = await subtree(tx, scope, folder);
      const ids = below.map((f) => f.id);
      const entries = await tx.count(Content, { ...scope, folderId: { $in: ids } });
      if (!recursive && (below.length > 1 || entries > 0)) {
        throw new AppError('FOLDER_NOT_EMPTY', 'The folder holds content or folders; pass recursive=true.', {
          contents: entries,
          folders: below.length - 1,
        });
      }
      // Unfiling changes the entries: their revision grows; nativeUpdate bypasses MikroORM's versioning.
      await tx.nativeUpdate(
        Content,
        { ...scope, folderId: { $in: ids } },
        { folderId: null, revision: raw('revision + 1') },
      );
      for (const f of below) if (f !== folder) tx.remove(f);
    });
  }
}
