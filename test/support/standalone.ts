// Black-box harness for the standalone deployment: subgraph services, each its own process, with our gateway.
import { createPostgresDatabase } from '@cp/db/testing';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './leftovers';
import { freePort, JWT_SECRET, ROOT, spawnNode, startService, SUBGRAPH_SECRET } from './service';
import type { Process, TestService } from './service';

export const SUBGRAPHS = ['access', 'content', 'components', 'assets'] as const;
export type SubgraphName = (typeof SUBGRAPHS)[number];
/** The services' URLs in the committed supergraph, replaced by a stack's own. */
const COMMITTED_PORTS: Record<SubgraphName, number> = { access: 4101, content: 4102, components: 4103, assets: 4104 };

export interface StandaloneOptions {
  /** The subgraphs that run as services of their own; all four by default. */
  subgraphs?: readonly SubgraphName[];
  /**
   * `behind` (default): the services start first, then a gateway whose `SUBGRAPH_URLS` names them. `beside`: a gateway
   * with every subgraph in-process starts first (it migrates the database and creates the admin) and the services run
   * next to it on the same database, as the reference they are compared to.
   */
  gateway?: 'behind' | 'beside';
  /** A database of the caller's own, kept afterwards; a fresh one on the local server by default, dropped by stop(). */
  databaseUrl?: string;
  /** Settings of every process, gateway included. */
  env?: Record<string, string>;
}

export interface StandaloneStack {
  databaseUrl: string;
  /** DATA_DIR shared by every process (uploads and assets live there). */
  dataDir: string;
  gateway: TestService;
  /** The services started, by subgraph; `restart` replaces an entry. */
  services: Partial<Record<SubgraphName, Process>>;
  /** The service of `name`, which must have been started. */
  service(name: SubgraphName): Process;
  /** Starts the service of `name` again (after the test stopped it) on the same port, with the same settings. */
  restart(name: SubgraphName): Promise<Process>;
  /** The committed supergraph routed to these services (for a third-party gateway); every subgraph must run here. */
  supergraph(): string;
  /** Starts another gateway with the first one's settings (same database, DATA_DIR and services). */
  startGateway(): Promise<TestService>;
  /** Stops every process (gateways started later included) and drops what the stack created. */
  stop(): Promise<void>;
}

export async function startStandaloneStack(options: StandaloneOptions = {}): Promise<StandaloneStack> {
  const names = options.subgraphs ?? SUBGRAPHS;
  const mode = options.gateway ?? 'behind';
  const db = options.databaseUrl
    ? { url: options.databaseUrl, drop: async () => undefined }
    : await createPostgresDatabase();
  const dataDir = tempDir('cp-standalone-');
  const envs: Partial<Record<SubgraphName, Record<string, string>>> = {};
  const services: Partial<Record<SubgraphName, Process>> = {};
  const gateways: TestService[] = [];
  let gatewayEnv: Record<string, string> = { ...options.env };

  const spawnService = async (name: SubgraphName) => {
    const env = (envs[name] ??= {
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
      JWT_SECRET,
      SUBGRAPH_SECRET,
      SUBGRAPH_PORT: String(await freePort()),
      ...options.env,
    });
    return (services[name] = await spawnNode(
      `subgraphs/${name}/dist/main.js`,
      env,
      new RegExp(`subgraph ${name} listening`),
    ));
  };
  const startGateway = async () => {
    const gateway = await startService({ databaseUrl: db.url, dataDir, env: gatewayEnv });
    gateways.push(gateway);
    return gateway;
  };
  /** Starts every service at once and waits for all of them, so that a failure leaves none starting. */
  const spawnServices = async () => {
    const failed = (await Promise.allSettled(names.map(spawnService))).find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  };
  const stop = async () => {
    await Promise.all([...gateways, ...Object.values(services)].map((p) => p.stop()));
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    if (mode === 'beside') {
      await startGateway();
      await spawnServices();
    } else {
      // Together, as a deployment starts them: their migrations take turns (an advisory lock, packages/db/src/orm.ts)
      // and no subgraph's tables refer to another's.
      await spawnServices();
      gatewayEnv = { ...gatewayEnv, SUBGRAPH_URLS: names.map((n) => `${n}=${services[n]!.url}`).join(',') };
      await startGateway();
    }
  } catch (err) {
    await stop();
    throw err;
  }

  const stack: StandaloneStack = {
    databaseUrl: db.url,
    dataDir,
    gateway: gateways[0],
    services,
    service(name) {
      const service = services[name];
      if (!service) throw new Error(`the ${name} service was not started`);
      return service;
    },
    restart: spawnService,
    supergraph() {
      let sdl = readFileSync(join(ROOT, 'schema/supergraph.graphql'), 'utf8');
      for (const name of SUBGRAPHS)
        sdl = sdl.replace(`http://127.0.0.1:${COMMITTED_PORTS[name]}/graphql`, stack.service(name).url);
      return sdl;
    },
    startGateway,
    stop,
  };
  return stack;
}
