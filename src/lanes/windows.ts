// Which window a burst belongs to: the lanes file's local times in its time
// zone; a burst belongs to the nearest one within the tolerance (a scheduled
// workflow starts minutes late), else to none.

import type { LanesSpec } from "./spec.ts";

export interface LocalClock {
  /** YYYY-MM-DD in the zone. */
  date: string;
  /** HH:MM in the zone. */
  time: string;
  /** Minutes since local midnight. */
  minutes: number;
}

export function localClock(at: Date, timeZone: string): LocalClock {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-CA", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  const time = `${parts.hour}:${parts.minute}`;
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    time,
    minutes: Number(parts.hour) * 60 + Number(parts.minute),
  };
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** The nearest window's "HH:MM" within tolerance_min, else null. */
export function windowOf(minutes: number, windows: LanesSpec["windows"]): string | null {
  let best: string | null = null;
  let bestGap = Number.POSITIVE_INFINITY;
  for (const w of windows.times) {
    const d = Math.abs(minutes - minutesOf(w));
    const gap = Math.min(d, 1440 - d);
    if (gap < bestGap) {
      best = w;
      bestGap = gap;
    }
  }
  return bestGap <= windows.tolerance_min ? best : null;
}
