// One service per test file: started before the tests, logged in as the bootstrap admin, destroyed after.
import { afterAll, beforeAll } from 'vitest';
import { Client } from './client';
import { startService, type StartOptions, type TestService } from './service';

export interface ServiceFixture {
  service: TestService;
  api: Client;
  /** The bootstrap admin's bearer token. */
  token: string;
}

/** Registers the hooks; the returned object is filled in once `beforeAll` has run. */
export function useService(options: StartOptions = {}): ServiceFixture {
  const fixture = {} as ServiceFixture;
  beforeAll(async () => {
    fixture.service = await startService(options);
    fixture.api = new Client(fixture.service.url);
    fixture.token = await fixture.api.login();
  });
  afterAll(() => fixture.service?.destroy());
  return fixture;
}
