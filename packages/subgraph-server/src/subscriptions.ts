// A standalone service whose schema has `Subscription.events` (the content service) serves it over graphql-ws at its
// own /graphql, the way Hive Gateway, Apollo Router and Cosmo open subscriptions to a subgraph.
import { AccessWatch } from '@cp/auth';
import type { Logger } from '@cp/config';
import { EventFeed, type EventBroker } from '@cp/db';
import { buildSubscriptionSchema, startSubscriptionServer } from './events/subscription-server';
import type { SubscriptionServerDeps } from './events/subscription-server';

export interface ServiceSubscriptions {
  /** Closes every socket (1001, cut at `deadline`) and stops the feed's polling. */
  close(deadline?: number): Promise<void>;
}

/**
 * Undefined for services without subscriptions. Events come from this service's own feed of the shared event table,
 * so a subscriber on any replica gets every event once; access events on it end the sockets that lost their right.
 */
export async function serveSubscriptions(
  deps: Omit<SubscriptionServerDeps, 'access' | 'apollo'> & { broker: EventBroker; logger: Logger },
): Promise<ServiceSubscriptions | undefined> {
  if (!deps.schema.getSubscriptionType()?.getFields().events) return undefined;
  const feed = await new EventFeed(deps.orm, deps.broker, deps.logger).open();
  const access = new AccessWatch(deps, (err) => deps.logger.warn({ err }, 're-checking a subscriber failed'));
  feed.onEvent((event) => access.changed(event));
  const server = startSubscriptionServer({ ...deps, access, schema: buildSubscriptionSchema(deps.schema, feed) });
  return {
    async close(deadline) {
      await server.close(deadline);
      await feed.stop();
    },
  };
}
