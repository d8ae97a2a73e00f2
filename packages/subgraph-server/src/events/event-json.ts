// The REST/SSE shape of an event, identical to the GraphQL `Event` type.
import type { EventRecord } from '@cp/db';

export function eventJson(event: EventRecord) {
  const { id, type, resourceType, resourceId, projectId, version, occurredAt, actorId } = event;
  return {
    id,
    type,
    resourceType,
    resourceId,
    projectId,
    version: version ?? null,
    occurredAt: occurredAt.toISOString(),
    actorId: actorId ?? null,
  };
}
