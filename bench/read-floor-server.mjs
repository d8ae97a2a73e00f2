// The floor under W2a: the admin read's one row, behind bare node:http with a `pg` pool and a prepared statement, with
// nothing of the platform's stack (no Express, authentication, GraphQL, ORM). `bench/client-reads.mjs` runs W2a's load
// against it on the database the gateway seeded, in the same run. `DATABASE_URL=… PORT=… node bench/read-floor-server.mjs`
// logs `{"url":…}` when listening.
import pg from 'pg';
import { serveAdminRead } from './lib.mjs';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const READ = {
  name: 'read',
  // The admin read's members (not the full-text vector, which the platform never answers).
  text: `select "id", "organization_id", "project_id", "type_id", "type_version", "package_version", "version",
           "last_published_version", "name", "description", "status", "is_template", "content", "compiled", "tags",
           "folder_id", "metadata", "created_by_id", "created_at", "updated_at", "revision"
           from "content" where "id" = $1 and "organization_id" = $2 and "project_id" = $3 limit 1`,
};
serveAdminRead(
  async ({ organizationId, projectId, id }) => {
    const { rows } = await pool.query({ ...READ, values: [id, organizationId, projectId] });
    return rows[0];
  },
  () => pool.end(),
);
