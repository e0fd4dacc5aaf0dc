// Where an arm's replica count is read: a Prometheus instant query, a metric
// summed over the arm's /metrics page, or a shell command that prints an
// integer (docs/autoscaling.md). Parsed once; described without its secrets.

import { InputError } from "../common/errors.ts";
import { hasUserinfo, httpUrl } from "../common/url.ts";

export type ReplicasSource =
  | { kind: "prom"; url: string }
  | { kind: "metric"; name: string; url: string }
  | { kind: "cmd"; command: string };

export const REPLICAS_ACCEPTS =
  "prom:URL (a Prometheus instant query, e.g. prom:http://prometheus:9090/api/v1/query?query=…), metric:NAME (summed over the arm's /metrics, metrics-url), cmd:COMMAND (a shell command that prints an integer), or none";

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

/** `name`'s value as a source; `metricsUrl` is the arm's /metrics page (null: not scraped). */
export function parseReplicasSource(
  name: string,
  raw: string,
  metricsUrl: string | null,
): ReplicasSource | null {
  const text = raw.trim();
  if (text === "" || text === "none") return null;
  const [kind, ...rest] = text.split(":");
  const value = rest.join(":").trim();
  if (kind === "prom") {
    if (hasUserinfo(value))
      throw new InputError(
        `${name}: credentials in the URL are not accepted (the URL is not shown)`,
      );
    const url = httpUrl(value);
    if (!url) throw rejected(name, raw);
    return { kind, url: url.toString() };
  }
  if (kind === "metric") {
    if (!METRIC_NAME.test(value)) throw rejected(name, raw);
    if (metricsUrl === null)
      throw new InputError(
        `${name} = metric:${value} reads the arm's /metrics, but metrics-url is none; expected a metrics URL, or a prom: or cmd: source`,
      );
    return { kind, name: value, url: metricsUrl };
  }
  if (kind === "cmd" && value !== "") return { kind, command: value };
  throw rejected(name, raw);
}

/** The source as a report names it: a query's host, a metric's name, a command's program (its arguments and environment may hold a token). */
export function describeReplicasSource(s: ReplicasSource): string {
  if (s.kind === "prom") return `prom:${new URL(s.url).host}`;
  if (s.kind === "metric") return `metric:${s.name}`;
  const program = s.command.split(/\s+/).find((w) => w !== "" && !/^\w+=/.test(w)) ?? "";
  return `cmd:${program.replace(/[^\w./-]/g, "").slice(0, 40)} …`;
}

/** A bad value's error: its form named, the value never quoted (a query or a command may hold a token). */
const rejected = (name: string, raw: string) =>
  new InputError(
    `${name}: a value of the form ${JSON.stringify(`${raw.trim().split(":")[0]?.slice(0, 12) ?? ""}:…`)} is not accepted (the value is not shown); expected ${REPLICAS_ACCEPTS}`,
  );
