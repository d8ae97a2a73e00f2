// SQL for tables whose rows are written once (published versions): the database itself refuses UPDATE and DELETE.

/** Statements for a migration's `up()`: a shared trigger function and a trigger on `table`. */
export function immutableRowsSql(table: string): string[] {
  return [
    `create or replace function "refuse_version_change"() returns trigger language plpgsql as $$
     begin raise exception 'published versions are immutable (%)', tg_table_name using errcode = 'restrict_violation'; end $$;`,
    `create trigger "${table}_immutable" before update or delete on "${table}" for each row execute function "refuse_version_change"();`,
  ];
}
