import type { EMITTED_EVENTS } from "../../events/types.ts";
import type { EventRow } from "../../storage/rows.ts";

/** An event of the log as the API shows it: `data` is what its webhook body carries after `event`. */
export const presentEvent = (row: EventRow) => ({
  id: row.id,
  type: row.type as (typeof EMITTED_EVENTS)[number],
  mode: row.mode,
  data: row.data,
  created_at: row.createdAt,
});
