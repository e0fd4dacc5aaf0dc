// Bundles the action (dist/index.js), the CLI (dist/cli.js) and a split trial's
// worker (dist/trial-worker.js) with esbuild.
// `node build.mjs --check` bundles into a scratch folder and fails when the
// committed dist/ differs, so a stale bundle never ships.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { NODE_VERSION_GUARD } from "./src/common/node-version.ts";

const check = process.argv.includes("--check");
const outdir = check ? mkdtempSync(join(tmpdir(), "llm-perf-gate-dist-")) : "dist";

// Bundled CommonJS dependencies call require() for Node built-ins; an ESM bundle
// has no require, so give it one.
const banner = [
  "import { createRequire as __createRequire } from 'node:module';",
  "const require = __createRequire(import.meta.url);",
].join("\n");

const common = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node24",
  outdir,
  sourcemap: false,
  legalComments: "none",
  logLevel: "warning",
};

await build({ ...common, entryPoints: { index: "src/main.ts" }, banner: { js: banner } });
await build({
  ...common,
  entryPoints: { cli: "src/cli.ts" },
  banner: { js: `#!/usr/bin/env node\n${NODE_VERSION_GUARD}\n${banner}` },
});
// A split trial's worker thread (src/trial/workers.ts finds it beside the bundle).
await build({
  ...common,
  entryPoints: { "trial-worker": "src/trial/trial-worker.ts" },
  banner: { js: banner },
});

if (check) {
  const fresh = readdirSync(outdir).sort();
  const committed = readdirSync("dist").sort();
  const stale = [...new Set([...fresh, ...committed])].filter((name) => {
    try {
      return !readFileSync(join(outdir, name)).equals(readFileSync(join("dist", name)));
    } catch {
      return true;
    }
  });
  rmSync(outdir, { recursive: true, force: true });
  if (stale.length > 0) {
    console.error(
      `dist/ is stale: ${stale.join(", ")} differ from a fresh bundle of src/. ` +
        "Run `npm run build` and commit dist/.",
    );
    process.exit(1);
  }
  console.log("dist/ matches a fresh bundle of src/.");
}
