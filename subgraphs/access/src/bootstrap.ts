// First start-up on an empty database: organization and project `default`, role `Owner`, the admin user.
import type { Logger } from '@cp/config';
import type { EntityManager } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import { hashPassword } from '@cp/auth';
import { insertTenant } from './organization/create-organization';
import { Organization } from './organization/organization.entity';
import { Project } from './project/project.entity';

export const DEFAULT_ID = 'default';

export async function bootstrap(
  em: EntityManager,
  admin: { email: string; password?: string },
  logger?: Logger,
): Promise<void> {
  if ((await em.count(Organization, {})) > 0) return;
  const password = admin.password ?? randomBytes(12).toString('base64url');
  const passwordHash = await hashPassword(password);
  try {
    await em.transactional(async (tx) => {
      const owner = { email: admin.email.toLowerCase(), name: 'Administrator', passwordHash };
      insertTenant(tx, { id: DEFAULT_ID, name: 'default', owner });
      tx.create(Project, { id: DEFAULT_ID, organizationId: DEFAULT_ID, name: 'default' });
    });
  } catch (err) {
    // Another replica bootstrapped at the same moment: its primary keys won.
    if ((await em.fork().count(Organization, { id: DEFAULT_ID })) > 0) return;
    throw err;
  }
  if (!admin.password) {
    // Printed once, on purpose: there is no other way to learn a generated password.
    console.log(
      `\n  Admin user created: ${admin.email}\n  Generated password: ${password}\n  (set ADMIN_PASSWORD to choose it)\n`,
    );
  }
  logger?.info({ email: admin.email }, 'bootstrapped organization, project, Owner role and admin user');
}
