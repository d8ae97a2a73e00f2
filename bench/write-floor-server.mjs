// The floor under W4: the SQL a PUT and a publish must run, behind bare node:http, with nothing of the platform's
// stack (no Express, GraphQL, federation, ORM, auth, validation or compile step). `bench/writes.mjs` runs its W4 loop
// against this server on a database the gateway set up, in the same run, so the gap between the two is the stack's.
// Started by the bench: `DATABASE_URL=… PORT=… node bench/write-floor-server.mjs` logs `{"url":…}` when listening.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import pg from 'pg';

// Ten connections, as the gateway's pool has; every statement a named prepared one (parsed and planned once per
// connection), which is the cheapest way node-postgres sends SQL and cheaper than the platform's inlined literals.
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const ACTOR = 'floor';

const LOCK = {
  name: 'lock',
  text: 'select * from "content" where "id" = $1 and "organization_id" = $2 and "project_id" = $3 for update',
};
const EVENT = {
  name: 'event',
  text: `insert into "event" ("id", "type", "resource_type", "resource_id", "organization_id", "project_id", "version",
           "published", "occurred_at", "actor_id") values ($1, $2, 'content', $3, $4, $5, $6, $7, now(), $8)`,
};
const EDIT = {
  name: 'edit',
  text: `update "content" set "content" = $2, "compiled" = $3, "status" = case when "status" = 'draft' then 'draft' else 'modified' end,
           "version" = null, "updated_at" = now(), "revision" = "revision" + 1 where "id" = $1 returning *`,
};
const VERSION = {
  name: 'version',
  text: `insert into "content_version" ("id", "organization_id", "project_id", "version", "created_by_id", "created_at",
           "content_id", "content", "compiled") values ($1, $2, $3, $4, $5, now(), $6, $7, $8)`,
};
const PUBLISH = {
  name: 'publish',
  text: `update "content" set "status" = 'published', "version" = $2, "last_published_version" = $2, "compiled" = $3,
           "metadata" = $4, "updated_at" = now(), "revision" = "revision" + 1 where "id" = $1 returning *`,
};
// The dispatcher's numbering (packages/db/src/events/dispatcher.ts), then the same announcement.
const NUMBER = `select pg_advisory_xact_lock(7240114);
  update "event" set "position" = s.pos
    from (select id, nextval('event_position_seq') as pos
            from (select id from "event" where "position" is null order by "occurred_at", "id" limit 1000) ordered) s
   where "event"."id" = s.id returning "event"."position";
  select max("position")::text as max from "event"`;

/** The module a real entry compiles to has the same shape: the data spliced into a prebuilt shell. */
const compile = (row, content, version) =>
  `var content = ${JSON.stringify(content)}; var meta = ${JSON.stringify({ id: row.id, name: row.name, version })};`;

/** One transaction on one connection: BEGIN, the work, COMMIT (ROLLBACK on any error). */
async function transaction(work) {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

// Outbox numbering after commits, coalesced as the platform's dispatcher is: one run at a time, and a commit waits for
// the first run that starts after it.
let running;
let queued;
function settle() {
  if (!queued) {
    queued = (async () => {
      await running;
      queued = undefined;
      const client = await pool.connect();
      try {
        const [, , highest] = await client.query(NUMBER);
        await client.query('select pg_notify($1, $2)', ['cp_events', highest.rows[0].max ?? '0']);
      } finally {
        client.release();
      }
    })();
    running = queued.catch(() => {});
  }
  return queued;
}

async function edit(scope, id, body) {
  const row = await transaction(async (client) => {
    const { rows } = await client.query({ ...LOCK, values: [id, scope.organizationId, scope.projectId] });
    if (!rows[0]) return undefined;
    await client.query({
      ...EVENT,
      values: [randomUUID(), 'content.updated', id, scope.organizationId, scope.projectId, null, false, ACTOR],
    });
    const updated = await client.query({ ...EDIT, values: [id, body.content, compile(rows[0], body.content, null)] });
    return updated.rows[0];
  });
  if (row) await settle();
  return row;
}

async function publish(scope, id) {
  const row = await transaction(async (client) => {
    const { rows } = await client.query({ ...LOCK, values: [id, scope.organizationId, scope.projectId] });
    const entry = rows[0];
    if (!entry) return undefined;
    const version = (entry.last_published_version ?? 0) + 1;
    const compiled = compile(entry, entry.content, version);
    const metadata = { ...entry.metadata, publishedAt: new Date().toISOString(), publishedBy: ACTOR };
    await client.query({
      ...EVENT,
      values: [randomUUID(), 'content.published', id, scope.organizationId, scope.projectId, version, true, ACTOR],
    });
    const snapshot = {
      name: entry.name,
      description: entry.description,
      content: entry.content,
      tags: entry.tags,
      folderId: entry.folder_id,
      metadata,
      typeVersion: entry.type_version,
      packageVersion: entry.package_version,
      isTemplate: entry.is_template,
    };
    await client.query({
      ...VERSION,
      values: [randomUUID(), scope.organizationId, scope.projectId, version, ACTOR, id, snapshot, compiled],
    });
    const updated = await client.query({ ...PUBLISH, values: [id, version, compiled, metadata] });
    return updated.rows[0];
  });
  if (row) await settle();
  return row;
}

const ROUTE = /^\/app\/v1\/organizations\/([^/]+)\/projects\/([^/]+)\/content\/([^/]+)(\/publish)?$/;

const server = createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const answer = (status, body) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  try {
    const match = ROUTE.exec(req.url ?? '');
    const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString()) : {};
    if (!match) return answer(404, { error: { code: 'NOT_FOUND', message: 'no route', details: {} } });
    const [, organizationId, projectId, id, publishing] = match;
    const scope = { organizationId, projectId };
    const row =
      req.method === 'PUT' && !publishing
        ? await edit(scope, id, body)
        : req.method === 'POST' && publishing
          ? await publish(scope, id)
          : undefined;
    if (!row) return answer(404, { error: { code: 'NOT_FOUND', message: 'no such entry', details: {} } });
    answer(200, row);
  } catch (err) {
    answer(500, { error: { code: 'INTERNAL', message: String(err), details: {} } });
  }
});

server.listen(Number(process.env.PORT), '127.0.0.1', () => {
  console.log(JSON.stringify({ url: `http://127.0.0.1:${process.env.PORT}` }));
});
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
