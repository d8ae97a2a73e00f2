// Runs a typed query, mutation and subscription against a running Content Platform and prints what it got.
// CP_URL (default http://127.0.0.1:4000), CP_TOKEN or CP_EMAIL + CP_PASSWORD, CP_ORGANIZATION / CP_PROJECT (default `default`).
import { ContentPlatformClient } from './client';
import { CreateTag, Login, Organizations, ProjectEvents } from './operations';

async function main() {
  const url = (process.env.CP_URL ?? 'http://127.0.0.1:4000').replace(/\/$/, '');
  const organizationId = process.env.CP_ORGANIZATION ?? 'default';
  const projectId = process.env.CP_PROJECT ?? 'default';

  let token = process.env.CP_TOKEN;
  if (!token) {
    const anonymous = new ContentPlatformClient(url);
    // Typed mutation: `login` is LoginMutation['login'] = { token: string; expiresAt: string }.
    const { login } = await anonymous.request(Login, {
      email: process.env.CP_EMAIL ?? 'admin@example.com',
      password: process.env.CP_PASSWORD ?? '',
    });
    token = login.token;
  }
  const client = new ContentPlatformClient(url, { authorization: `Bearer ${token}` });
  try {
    // Typed subscription, opened first so the tag created below reaches it.
    const events = client.subscribe(ProjectEvents, { projectId, resourceType: 'tags' });
    const firstEvent = events.next();
    await new Promise((resolve) => setTimeout(resolve, 500));

    // Typed query: `organizations.data` is Array<{ id: string; name: string }>.
    const { organizations } = await client.request(Organizations, {});
    const names: string[] = organizations.data.map((o) => o.name);

    // Typed mutation with typed variables (a missing `name` would not compile).
    const { createTag } = await client.request(CreateTag, {
      organizationId,
      projectId,
      name: `typed-client-${Date.now()}`,
      color: '#3366ff',
    });

    const deadline = setTimeout(() => {
      console.error('no event within 30 s');
      process.exit(1);
    }, 30_000);
    let next = await firstEvent;
    while (!next.done && next.value.events.resourceId !== createTag.id) next = await events.next();
    clearTimeout(deadline);
    await events.return(undefined);
    console.log(JSON.stringify({ organizations: names, tag: createTag, event: next.done ? null : next.value.events }));
  } finally {
    await client.close();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
