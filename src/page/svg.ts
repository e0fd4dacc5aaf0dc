// A chart as static SVG: a Vega-Lite specification compiled to Vega and
// rendered headless, here, when the page is written. The page then holds
// pictures only — no script runs when it is opened, nothing is loaded.

import { parse, View } from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import { PALETTE } from "../report/blocks.ts";

/** The arms' colours, the same in every chart: the comment's blue and red. */
export const ARM_COLORS = { baseline: PALETTE[0], candidate: PALETTE[1] } as const;

const CONFIG = {
  font: "system-ui, -apple-system, Segoe UI, sans-serif",
  view: { stroke: "#ddd" },
  axis: { labelFontSize: 11, titleFontSize: 12, gridColor: "#eee" },
  legend: { labelFontSize: 11, titleFontSize: 12, orient: "top" },
  title: { fontSize: 13, anchor: "start" },
} as const;

/** Vega-Lite's `loader` would fetch a `url` data source: every spec here carries its values inline, and nothing may be fetched. */
const NO_LOADER = {
  load: () => Promise.reject(new Error("the report loads nothing")),
  sanitize: () => Promise.reject(new Error("the report loads nothing")),
  http: () => Promise.reject(new Error("the report loads nothing")),
  file: () => Promise.reject(new Error("the report loads nothing")),
};

/**
 * A Vega-Lite specification as the page's modules build it: plain data,
 * checked by Vega-Lite's compiler when it is drawn (its own types are too
 * deep to name each chart's layers with).
 */
export type ChartSpec = Record<string, unknown>;

/** The SVG of a Vega-Lite chart (data inline). */
export async function chartSvg(spec: ChartSpec): Promise<string> {
  const vega = compile({ ...spec, config: CONFIG } as TopLevelSpec).spec;
  const view = new View(parse(vega), { renderer: "none", loader: NO_LOADER });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
