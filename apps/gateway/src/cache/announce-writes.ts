// Mutations answer only after their events were announced to every replica, so the writer's next read anywhere is fresh.
import type { ApolloServerPlugin } from '@apollo/server';
import type { EventDispatcher } from '@cp/db';
import type { Context } from '@cp/graphql';

/**
 * A write's transaction kicks this process's dispatcher on commit; awaiting `settle()` here means the events have
 * positions and the broker has carried the announcement before the response leaves. Every replica's read cache
 * stands aside from the moment that announcement arrives (see ReadCache), so a client that reads after the write's
 * response — on any replica — gets the new state. Costs no query: it waits for the run the commit started.
 */
export function announceWritesBeforeAnswering(dispatcher: EventDispatcher): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ operation }) {
          if (operation?.operation === 'mutation') await dispatcher.settle();
        },
      };
    },
  };
}
