// Creating a tenant: the organization, its Owner role and its first owner, in one transaction. Operators do it with
// `content-platform organizations create` (docs/operating/cli.md); no API route creates organizations, since the
// spec's role flags for organizations are read, update and delete, and a user belongs to one organization.
import { AppError, ValidationFailedError } from '@cp/errors';
import { isUniqueViolation } from '@cp/db';
import { allPermissions, requireName } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { hashPassword } from '@cp/auth';
import { OWNER_ROLE, Role } from '../role/role.entity';
import { assertAcceptablePassword } from '../user/password-policy';
import { checkEmail } from '../user/user.service';
import { User } from '../user/user.entity';
import { Organization } from './organization.entity';

/** Ids appear in every path (`/app/v1/organizations/{id}/…`) and in CDN URLs: URL-safe, like generated ones. */
const ID = /^[A-Za-z0-9_-]{1,64}$/;

export interface NewOrganization {
  /** Default: a generated UUID. */
  id?: string;
  name: string;
  owner: { email: string; name: string; password: string };
}

export interface CreatedOrganization {
  organization: Organization;
  role: Role;
  owner: User;
}

/** The rows of a new tenant, as the first start creates `default` too (bootstrap.ts); no checks. */
export function insertTenant(
  tx: EntityManager,
  tenant: { id?: string; name: string; owner: { email: string; name: string; passwordHash: string } },
): CreatedOrganization {
  const organization = tx.create(Organization, { ...(tenant.id ? { id: tenant.id } : {}), name: tenant.name });
  const role = tx.create(Role, {
    organizationId: organization.id,
    name: OWNER_ROLE,
    description: 'Every permission on every resource.',
    permissions: allPermissions(),
  });
  const owner = tx.create(User, { organizationId: organization.id, roleId: role.id, ...tenant.owner });
  return { organization, role, owner };
}

/**
 * A tenant with the rules of the API: a name, a valid and unused email, the password policy. A taken id or email is
 * 409 NAME_TAKEN and nothing is created. Like the first start, it records no event: nobody reads the new
 * organization's events yet.
 */
export async function createOrganization(em: EntityManager, input: NewOrganization): Promise<CreatedOrganization> {
  if (input.id !== undefined && !ID.test(input.id)) {
    throw new ValidationFailedError([{ path: '/id', message: 'must be 1 to 64 letters, digits, - or _' }]);
  }
  const name = requireName(input.name);
  const email = checkEmail(input.owner.email);
  const ownerName = requireName(input.owner.name, '/owner/name');
  await assertAcceptablePassword(input.owner.password, [email, ownerName]);
  const passwordHash = await hashPassword(input.owner.password);
  const taken = (resource: string, value: string) =>
    new AppError('NAME_TAKEN', `A ${resource} "${value}" already exists.`, { resource, name: value });
  try {
    return await em.transactional(async (tx) =>
      insertTenant(tx, { id: input.id, name, owner: { email, name: ownerName, passwordHash } }),
    );
  } catch (err) {
    // The unique keys decide, also between concurrent creations: the email's, else the id's (the organization's
    // primary key, or its Owner role's name when that row is written first).
    if (isUniqueViolation(err, 'email')) throw taken('user', email);
    if (isUniqueViolation(err)) throw taken('organization', input.id ?? '');
    throw err;
  }
}
