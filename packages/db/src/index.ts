// Database access shared by the subgraphs: ORM factory, embedded PostgreSQL, migrations, the event recorder.
export * from './orm';
export * from './embedded';
export * from './events/event.entity';
export * from './events/record-event';
export * from './project-directory';
export * from './unique-violation';
