// Metrics every process exposes: process, database pool, event positions, open streams; plus `/metrics` serving.
import type { Config, Logger } from '@cp/config';
import { enableProcessMetrics, gaugeFrom, metricsEndpoint, observeRequest, startMetricsServer } from '@cp/metrics';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Express, NextFunction, Request, Response } from 'express';
import type { Server } from 'node:http';

export interface RuntimeMetricsSources {
  orm: MikroORM;
  /** The position this process's event feed delivered up to (gateway only). */
  feedPosition?: () => bigint;
  sseStreams?: () => number;
  wsConnections?: () => number;
  wsSubscriptions?: () => number;
}

/** The tarn pool behind MikroORM's knex connection. */
interface TarnPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

export function registerRuntimeMetrics(sources: RuntimeMetricsSources): void {
  enableProcessMetrics();
  const { orm } = sources;
  const pool = () => (orm.em.getConnection().getKnex() as unknown as { client: { pool?: TarnPool } }).client.pool;
  gaugeFrom(
    'cp_db_pool_connections',
    'Database pool connections (MikroORM knex pool): used, free, and requests waiting for one.',
    () => {
      const p = pool();
      if (!p) return [];
      return [
        { labels: { state: 'used' }, value: p.numUsed() },
        { labels: { state: 'free' }, value: p.numFree() },
        { labels: { state: 'waiting' }, value: p.numPendingAcquires() },
      ];
    },
    ['state'],
  );
  const newest = async () => {
    const [row] = await orm.em
      .getConnection()
      .execute<{ newest: string | null }[]>('select max("position") as "newest" from "event"');
    return BigInt(row?.newest ?? 0);
  };
  gaugeFrom('cp_events_newest_position', 'Highest event position assigned (committed and dispatched).', async () =>
    Number(await newest()),
  );
  gaugeFrom(
    'cp_events_undispatched',
    'Committed events still waiting for a position (dispatcher backlog).',
    async () => {
      const [row] = await orm.em
        .getConnection()
        .execute<{ n: string }[]>('select count(*) as "n" from "event" where "position" is null');
      return Number(row?.n ?? 0);
    },
  );
  const feedPosition = sources.feedPosition;
  if (feedPosition) {
    gaugeFrom(
      'cp_events_lag',
      'Newest event position minus the position this process delivered to its subscribers.',
      async () => Math.max(0, Number((await newest()) - feedPosition())),
    );
  }
  if (sources.sseStreams) gaugeFrom('cp_sse_streams', 'Open Server-Sent Events streams.', sources.sseStreams);
  if (sources.wsConnections)
    gaugeFrom('cp_graphql_ws_connections', 'Open graphql-ws (subscription) connections.', sources.wsConnections);
  if (sources.wsSubscriptions) {
    gaugeFrom('cp_graphql_ws_subscriptions', 'Live graphql-ws `events` subscriptions.', sources.wsSubscriptions);
  }
}

/** Times every request (first middleware) — cheap: one histogram observation when the response closes. */
export function requestMetrics() {
  return (req: Request, res: Response, next: NextFunction) => {
    observeRequest(req, res);
    next();
  };
}

/**
 * `/metrics`: on the service port with `METRICS_TOKEN` (bearer), and/or on `METRICS_PORT` bound to `METRICS_HOST`
 * (loopback by default) without a token. Neither set: not served. Returns the separate server, if any.
 */
export async function serveMetrics(
  app: Express,
  config: Pick<Config, 'metrics'>,
  logger: Logger,
): Promise<Server | undefined> {
  app.get('/metrics', metricsEndpoint({ token: config.metrics.token }));
  if (config.metrics.port === undefined) return undefined;
  const server = await startMetricsServer(config.metrics.port, config.metrics.host);
  const address = server.address();
  logger.info(
    {
      metrics:
        typeof address === 'object' && address ? `http://${config.metrics.host}:${address.port}/metrics` : undefined,
    },
    'metrics listening',
  );
  return server;
}
