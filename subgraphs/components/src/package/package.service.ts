// Package rules: one transaction publishes every draft/modified component and records the library snapshot.
import { nextVersion, recordEvent } from '@cp/db';
import { AppError, NotFoundError } from '@cp/errors';
import { EntityStatus, keysetPage, type CursorArgs, type ProjectScope } from '@cp/graphql';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { nextPackageVersion } from '../compiler/package-version';
import { ComponentVersion } from '../component/component-version.entity';
import { Component } from '../component/component.entity';
import type { ResolvedPackage } from './package.inputs';
import { Package, type PackageComponent } from './package.entity';

export class PackageService {
  list(em: EntityManager, scope: ProjectScope, args: CursorArgs) {
    const where = { organizationId: scope.organizationId, projectId: scope.projectId };
    return keysetPage(em, Package, { where, sortField: 'createdAt', direction: 'desc', args });
  }

  async get(em: EntityManager, scope: ProjectScope, version: string): Promise<Package> {
    const pkg = await em.findOne(Package, {
      organizationId: scope.organizationId,
      projectId: scope.projectId,
      version,
    });
    if (!pkg) throw new NotFoundError('Package', version);
    return pkg;
  }

  async resolved(em: EntityManager, scope: ProjectScope, version: string): Promise<ResolvedPackage> {
    const pkg = await this.get(em, scope, version);
    const rows = await this.versionsOf(em, pkg.components);
    const components = pkg.components.map((c) => {
      const row = rows.get(`${c.id}@${c.version}`)!;
      return {
        ...c,
        type: row.type,
        title: row.title,
        description: row.description,
        compiled: row.compiled,
        schema: row.schema,
      };
    });
    return { ...pkg, components };
  }

  /**
   * Every draft and modified (not deleted) component gets its next version, all or none; the package records the
   * whole library at that moment (unchanged components at their current versions), so content pinned to it can
   * resolve every component it uses. Concurrent calls serialise on a per-project lock: the second finds nothing.
   */
  async create(
    em: EntityManager,
    scope: ProjectScope,
    description: string | undefined,
    actorId: string,
  ): Promise<Package> {
    return em.transactional(async (tx) => {
      await tx
        .getConnection()
        .execute(
          'select pg_advisory_xact_lock(hashtext(?))',
          [`package:${scope.projectId}`],
          'all',
          tx.getTransactionContext(),
        );
      const inProject = { organizationId: scope.organizationId, projectId: scope.projectId };
      const pending = await tx.find(
        Component,
        { ...inProject, status: { $in: [EntityStatus.draft, EntityStatus.modified] } },
        { lockMode: LockMode.PESSIMISTIC_WRITE, orderBy: { createdAt: 'asc', id: 'asc' } },
      );
      if (pending.length === 0) throw new AppError('NOTHING_TO_PUBLISH', 'No draft or modified component to publish.');
      for (const component of pending) {
        const version = nextVersion(component);
        const { name, type, title, description: about, content, compiled, schema, metadata, collectionId } = component;
        tx.create(ComponentVersion, {
          componentId: component.id,
          ...inProject,
          version,
          name,
          type,
          title,
          description: about,
          content,
          compiled: compiled ?? '',
          schema,
          metadata,
          collectionId: collectionId ?? null,
          createdById: actorId,
        });
        Object.assign(component, { status: EntityStatus.published, version, lastPublishedVersion: version });
        recordEvent(tx, {
          resourceType: 'components',
          action: 'published',
          resourceId: component.id,
          ...inProject,
          actorId,
          version,
          published: true,
        });
      }
      await tx.flush();

      const library = await tx.find(
        Component,
        { ...inProject, status: EntityStatus.published },
        { orderBy: { name: 'asc' } },
      );
      const components: PackageComponent[] = library.map((c) => ({ id: c.id, name: c.name, version: c.version! }));
      const previous = await tx.findOne(Package, inProject, { orderBy: { createdAt: 'desc', id: 'desc' } });
      const version = nextPackageVersion(
        previous && { version: previous.version, components: await this.schemasOf(tx, previous.components) },
        await this.schemasOf(tx, components),
      );
      const pkg = tx.create(Package, {
        ...inProject,
        version,
        description: description ?? null,
        components,
        createdById: actorId,
      });
      recordEvent(tx, {
        resourceType: 'packages',
        action: 'created',
        resourceId: pkg.id,
        ...inProject,
        actorId,
        published: true,
      });
      return pkg;
    });
  }

  private async versionsOf(em: EntityManager, components: PackageComponent[]): Promise<Map<string, ComponentVersion>> {
    if (components.length === 0) return new Map();
    const rows = await em.find(ComponentVersion, {
      $or: components.map((c) => ({ componentId: c.id, version: c.version })),
    });
    return new Map(rows.map((r) => [`${r.componentId}@${r.version}`, r]));
  }

  private async schemasOf(em: EntityManager, components: PackageComponent[]) {
    const rows = await this.versionsOf(em, components);
    return components.map((c) => ({ name: c.name, schema: rows.get(`${c.id}@${c.version}`)!.schema }));
  }
}
