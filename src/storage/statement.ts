import { type SQL, sql } from "drizzle-orm";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";

const dialect = new SQLiteSyncDialect();

/**
 * A raw D1 statement written with drizzle's sql`` template, for what the query builder does not say (an
 * INSERT … SELECT … WHERE, an UPDATE … RETURNING over a subquery, a CTE of VALUES): each value is bound
 * where it is written, so a column or condition added later cannot shift the values after it. The only
 * `prepare` of src/ (lint/raw-statements.grit refuses any other); D1's 100 bound parameters still apply.
 */
export function statement(d1: D1Database, query: SQL): D1PreparedStatement {
  const compiled = dialect.sqlToQuery(query);
  return d1.prepare(compiled.sql).bind(...compiled.params);
}

/**
 * `a, b, c` of bound values (or SQL expressions), for `IN (…)` and `VALUES (…)`. drizzle drops an undefined
 * value from the text, which would shift the list: it is refused, as D1 refuses binding one.
 */
export const valueList = (values: readonly unknown[]): SQL =>
  sql.join(
    values.map((value, index) => {
      if (value === undefined) throw new TypeError(`value ${index} of the list is undefined`);
      return sql`${value}`;
    }),
    sql`, `,
  );
