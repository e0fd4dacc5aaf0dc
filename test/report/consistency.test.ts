// One story per comment: every number the headline names appears, equal, in
// the tables below it — each change with its label's row, each failure rate
// in the failure-rate row, and a quality headline's count of broken cases in
// the rows of the cases that newly fail. Checked on every golden comment.

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

const DIR = join(import.meta.dirname, "../golden");
const goldens = readdirSync(DIR).filter((f) => f.endsWith(".md"));

const headlineOf = (md: string) => md.split("\n")[1] ?? "";
const rows = (md: string) => md.split("\n").filter((l) => l.startsWith("|"));

test("every golden comment's headline numbers are in its tables", () => {
  assert.ok(goldens.length >= 8, "the goldens are there");
  for (const name of goldens) {
    const md = readFileSync(join(DIR, name), "utf8");
    const headline = headlineOf(md);
    const table = rows(md);
    // A change the headline names (p95 ITL +30.4 %): in a table row, with the metric's label when it has one.
    for (const [, label, change] of headline.matchAll(
      /(p\d+ [A-Z]+|goodput)? ?([+−]\d+\.\d %)(?! \()/g,
    )) {
      const row = table.find((r) => r.includes(change ?? "") && (!label || r.includes(label)));
      assert.ok(row, `${name}: "${label ?? ""} ${change}" of the headline is in no table row`);
    }
    // A failure rate on each arm (4.8 % of requests … vs 0.0 %): the failure-rate row shows both.
    const rates = headline.match(/(\d+\.\d %) of requests .* vs (\d+\.\d %) on the baseline/);
    if (rates) {
      const row = table.find((r) => r.includes("failure rate"));
      assert.ok(
        row?.includes(`${rates[2]} | ${rates[1]}`),
        `${name}: failure rates ${rates[1]}, ${rates[2]}`,
      );
    }
    // Broken cases (3 cases that pass on the baseline fail on it): that many distinct newly failing cases.
    const broken = headline.match(/(\d+) cases? that pass on the baseline fail on it/);
    if (broken) {
      const ids = new Set(
        table.flatMap((r) => {
          const cells = r.split("|").map((c) => c.trim());
          return cells[3] === "newly fails" ? [cells[2]] : [];
        }),
      );
      assert.equal(ids.size, Number(broken[1]), `${name}: ${[...ids].join(", ")}`);
      // And no check kind's row says "pass" beside a newly failing case of its own.
      for (const r of table) {
        const kind = r.match(
          /^\| [a-z_]+ \| \d+ \| \d+ % \| \d+ % \| (\d+) \| \d+ \| [\d.<]+ \| pass \|$/,
        );
        if (kind) assert.equal(kind[1], "0", `${name}: ${r}`);
      }
    }
  }
});
