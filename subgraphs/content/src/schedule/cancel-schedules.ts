// Deleting a resource cancels its pending schedules, inside the delete's transaction.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Schedule, ScheduleStatus, type ScheduleResourceType } from './schedule.entity';

export async function cancelPendingSchedules(
  tx: EntityManager,
  resourceType: ScheduleResourceType,
  resourceId: string,
): Promise<void> {
  await tx.nativeUpdate(
    Schedule,
    { resourceType, resourceId, status: ScheduleStatus.pending },
    { status: ScheduleStatus.cancelled, updatedAt: new Date() },
  );
}
