// `content-platform organizations create`: a new tenant with its Owner role and first owner, by the access subgraph's rules.
import { createOrganization } from '@cp/subgraph-access';
import { cliConfig, withDatabase } from '../runtime';
import { generatedPassword } from './users';

/** The owner then signs in and creates projects, users and keys through the API. */
export function createOrganizationCommand(
  name: string,
  options: { id?: string; ownerEmail: string; ownerName: string; ownerPassword?: string },
) {
  return withDatabase(cliConfig(), async (db) => {
    const password = options.ownerPassword ?? generatedPassword();
    const { organization, role, owner } = await createOrganization(db.orm.em.fork(), {
      id: options.id,
      name,
      owner: { email: options.ownerEmail, name: options.ownerName, password },
    });
    return {
      id: organization.id,
      name: organization.name,
      roleId: role.id,
      owner: { id: owner.id, email: owner.email, name: owner.name },
      ...(options.ownerPassword ? {} : { password }),
    };
  });
}
