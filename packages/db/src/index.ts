// Database access shared by the subgraphs: ORM factory, embedded PostgreSQL, migrations, the event recorder.
export * from './orm';
export * from './embedded';
export * from './events/event.entity';
export * from './events/record-event';
export * from './project-directory';
export * from './unique-violation';
export * from './events/broker';
export * from './events/dispatcher';
export * from './events/event-query';
export * from './events/event-feed';
export * from './events/event-access';
export * from './project-scoped.entity';
export * from './version-record.entity';
export * from './immutable-rows';
export * from './latest-versions';
export * from './transfer/transfer';
export * from './tag-records';
