// A job's schedule as the pages show it: "cron 0 9 * * 1-5 (America/New_York)", with the zone
// kept whole on one line. A zone split mid-name ("New_Yor k") in a narrow fact column reads as
// a typo; zone names are short (IANA, validated), so keeping one unbroken never widens a page.

import type { FC } from "hono/jsx";
import type { Schedule } from "../../core/scheduler/schedule.ts";

export const ScheduleText: FC<{ schedule: Schedule }> = ({ schedule }) => (
  <>
    {`${schedule.kind} ${schedule.expr}`}
    {schedule.tz && schedule.tz !== "UTC"
      ? (
        <>
          {" "}
          <span class="nowrap">({schedule.tz})</span>
        </>
      )
      : null}
  </>
);
