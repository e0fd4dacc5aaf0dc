// The CLI needs Node ≥ 22.19 (undici 8). On an older Node the bundle would
// crash while loading its dependencies, before any of our code ran; this
// check goes first in dist/cli.js (build.mjs puts it in the banner) and says so.

export const MIN_NODE = "22.19";

/** Self-contained source, for the top of the bundle: it runs before any import's code. */
export const NODE_VERSION_GUARD = `{
  const [major, minor] = process.versions.node.split(".").map(Number);
  if (major < 22 || (major === 22 && minor < 19)) {
    process.stderr.write("llm-perf-gate needs Node >= ${MIN_NODE} (found " + process.version + ")\\n");
    process.exit(2);
  }
}`;
