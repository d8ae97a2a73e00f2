// The project directory: what it caches and only where it follows the feed, and which events drop what.
import type { MikroORM } from '@mikro-orm/postgresql';
import { describe, expect, it } from 'vitest';
import { SqlProjectDirectory } from './project-directory';

/** A `project` table of `${organizationId}/${projectId}` rows that counts the checks reaching it. */
function table(...rows: string[]) {
  const projects = new Set(rows);
  const counted = { reads: 0, projects };
  const execute = async (_sql: string, [projectId, organizationId]: string[]) => {
    counted.reads++;
    return projects.has(`${organizationId}/${projectId}`) ? [{ '?column?': 1 }] : [];
  };
  const orm = {
    em: { getConnection: () => ({ execute }), getTransactionContext: () => undefined },
  } as unknown as MikroORM;
  return { counted, orm };
}

describe('SqlProjectDirectory', () => {
  it('reads the table for every check where it does not follow a feed', async () => {
    const { counted, orm } = table('o1/p1');
    const directory = new SqlProjectDirectory(orm);
    expect(await directory.exists('o1', 'p1')).toBe(true);
    expect(await directory.exists('o1', 'p1')).toBe(true);
    expect(await directory.exists('o1', 'p2')).toBe(false);
    expect(counted.reads).toBe(3);
  });

  it('caches existence once it follows the feed, never absence, and stands aside while the feed is behind', async () => {
    const { counted, orm } = table('o1/p1');
    const directory = new SqlProjectDirectory(orm);
    let applied = 0n;
    directory.follow(() => applied);
    await directory.exists('o1', 'p1');
    await directory.exists('o1', 'p2');
    counted.projects.add('o1/p2');
    expect([await directory.exists('o1', 'p1'), await directory.exists('o1', 'p2')]).toEqual([true, true]);
    expect(counted.reads).toBe(3);
    directory.announced(1n);
    await directory.exists('o1', 'p1');
    expect(counted.reads).toBe(4);
    applied = 1n;
    await directory.exists('o1', 'p1');
    expect(counted.reads).toBe(4);
  });

  it("drops a project by its own event, an organization's projects by the organization's, nothing by others", async () => {
    const { counted, orm } = table('o1/p1', 'o1/p2', 'o2/p1');
    const directory = new SqlProjectDirectory(orm);
    directory.follow(() => 0n);
    const checks = async () => {
      const before = counted.reads;
      for (const [org, project] of [
        ['o1', 'p1'],
        ['o1', 'p2'],
        ['o2', 'p1'],
      ])
        await directory.exists(org, project);
      return counted.reads - before;
    };
    expect(await checks()).toBe(3);
    directory.invalidate({ resourceType: 'content', resourceId: 'p1', organizationId: 'o1' });
    expect(await checks()).toBe(0);
    directory.invalidate({ resourceType: 'projects', resourceId: 'p1', organizationId: 'o1' });
    expect(await checks()).toBe(1);
    directory.invalidate({ resourceType: 'organizations', resourceId: 'o1', organizationId: 'o1' });
    expect(await checks()).toBe(2);
  });
});
