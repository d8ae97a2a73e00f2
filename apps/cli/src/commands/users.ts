// `content-platform users create|reset-password`: through the access subgraph's UserService (email rules, password policy, no privilege escalation).
import { Role, User, UserService } from '@cp/subgraph-access';
import { randomBytes } from 'node:crypto';
import { RefusedError } from '../errors';
import { actingUser, cliConfig, withDatabase } from '../runtime';

const service = new UserService();

/** A generated password is returned once so the operator can hand it over; it is never stored in clear. */
export const generatedPassword = () => randomBytes(15).toString('base64url');

export function createUser(options: {
  organization: string;
  email: string;
  name: string;
  role: string;
  password?: string;
  as?: string;
}) {
  return withDatabase(cliConfig(), async (db) => {
    const em = db.orm.em.fork();
    const caller = await actingUser(em, options.organization, options.as);
    const role = await em.findOne(Role, {
      organizationId: options.organization,
      $or: [{ id: options.role }, { name: options.role }],
    });
    if (!role) throw new RefusedError(`No role "${options.role}" in organization ${options.organization}.`);
    const password = options.password ?? generatedPassword();
    const user = await service.create(em, caller, {
      email: options.email,
      name: options.name,
      password,
      roleId: role.id,
    });
    return {
      id: user.id,
      email: user.email,
      name: user.name,
      role: role.name,
      ...(options.password ? {} : { password }),
    };
  });
}

/** Also refuses every token issued before it (the service sets `tokensValidAfter`). */
export function resetPassword(options: { organization: string; email: string; password?: string; as?: string }) {
  return withDatabase(cliConfig(), async (db) => {
    const em = db.orm.em.fork();
    const caller = await actingUser(em, options.organization, options.as);
    const user = await em.findOne(User, {
      organizationId: options.organization,
      email: options.email.trim().toLowerCase(),
    });
    if (!user) throw new RefusedError(`No user ${options.email} in organization ${options.organization}.`);
    const password = options.password ?? generatedPassword();
    await service.update(em, caller, user.id, { password });
    return { id: user.id, email: user.email, ...(options.password ? {} : { password }) };
  });
}
