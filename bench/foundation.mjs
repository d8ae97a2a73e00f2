// Foundation benchmark: REST list vs GraphQL list vs a two-subgraph query in-process and over HTTP, as ratios to node:http.
import {
  createDatabase,
  freePort,
  JWT_SECRET,
  load,
  login,
  report,
  spawnNode,
  startBaseline,
  startGateway,
  SUBGRAPH_SECRET,
} from './lib.mjs';

const PROJECT = '/organizations/default/projects/default';
// The fields sofa selects for the REST route, so both scenarios fetch and serialise the same data.
const TYPE_FIELDS =
  'id organizationId projectId name description status version lastPublishedVersion layoutComponentId componentIdsAllowList packageVersion schema templateContentIds permissions metadata createdAt updatedAt';
const LIST_QUERY = `{ contentTypes(organizationId: "default", projectId: "default") { data { ${TYPE_FIELDS} createdBy { id } } pagination { lastKey } } }`;
const CROSS_QUERY = `{ contentTypes(organizationId: "default", projectId: "default") { data { ${TYPE_FIELDS} createdBy { email name } } } }`;
const gql = (query) => ({ method: 'POST', body: JSON.stringify({ query }) });

async function seed(url, token) {
  for (let i = 0; i < 20; i++) {
    const res = await fetch(`${url}/app/v1${PROJECT}/content-types`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        name: `Type ${i}`,
        schema: { type: 'object', properties: { title: { type: 'string' } } },
      }),
    });
    if (res.status !== 201) throw new Error(`seed failed: ${res.status}`);
  }
}

const db = await createDatabase();
const baseline = await startBaseline();
const local = await startGateway({ DATABASE_URL: db.url });
const remotes = [];
try {
  const token = await login(local.url);
  await seed(local.url, token);
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };

  const urls = [];
  for (const name of ['access', 'content', 'components', 'assets']) {
    const port = await freePort();
    const svc = await spawnNode(
      `subgraphs/${name}/dist/main.js`,
      { DATABASE_URL: db.url, JWT_SECRET, SUBGRAPH_SECRET, SUBGRAPH_PORT: String(port), LOG_LEVEL: 'info' },
      new RegExp(`subgraph ${name} listening`),
    );
    remotes.push(svc);
    urls.push(`${name}=${svc.url}`);
  }
  const remote = await startGateway({ DATABASE_URL: db.url, SUBGRAPH_URLS: urls.join(',') });
  remotes.push(remote);

  const base = await load('bare node:http, 1 KB JSON (baseline)', { url: baseline.url });
  const rows = [
    await load('REST GET content-types (20 items)', { url: `${local.url}/app/v1${PROJECT}/content-types`, headers }),
    await load('GraphQL contentTypes (same list)', { url: `${local.url}/graphql`, headers, ...gql(LIST_QUERY) }),
    await load('GraphQL list + createdBy (2 subgraphs, in-process)', {
      url: `${local.url}/graphql`,
      headers,
      ...gql(CROSS_QUERY),
    }),
    await load('GraphQL list + createdBy (2 subgraphs, over HTTP)', {
      url: `${remote.url}/graphql`,
      headers,
      ...gql(CROSS_QUERY),
    }),
  ];
  report('Foundation: gateway paths', base, rows);
} finally {
  await Promise.all([...remotes.map((r) => r.stop()), local.stop(), baseline.stop()]);
  await db.drop();
}
