// Preloaded into a CLI child (`--import`): at exit, the process's peak
// resident memory in kilobytes, written where the test asked, for it to read.

import { writeFileSync } from "node:fs";

const out = process.env.LPG_TEST_PEAK_RSS_FILE;
if (out) process.on("exit", () => writeFileSync(out, String(process.resourceUsage().maxRSS)));
